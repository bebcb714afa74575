/// What the server found of a BIND's token, before the engine sees the bind.
enum BindAuthorization: Hashable, Sendable {
    /// The token is good and names this user.
    case user(String)
    /// The token is missing or refused; why.
    case refused(String)
}
