/// Who wrote an upload, as its session knows it: the permission checks judge every object it writes
/// against this user's rules and this view.
public struct UploadWriter: Hashable, Sendable {
    /// The session's user: `$user` in the rules, and the creator of the objects it creates.
    public var user: String
    /// Per class, the union of the session's subscriptions on it, as one predicate. A class absent
    /// from it is not subscribed: every write to it is outside the view.
    public var view: [String: ViewPredicate]
    /// The subscription set `view` was compiled from, when known: an upload put in a shared store's
    /// inbox carries it, and the integrator compiles it again (`SharedIntegration`).
    public var query: QuerySet?

    public init(user: String, view: [String: ViewPredicate], query: QuerySet? = nil) {
        self.user = user
        self.view = view
        self.query = query
    }
}
