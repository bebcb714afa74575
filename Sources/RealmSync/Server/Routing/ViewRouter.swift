/// Decides, for one session and one round of downloads, what becomes of each object touched since
/// the session's cursor (docs/SYNC.md "Routing"): by whether the replica holds it and whether it is
/// in the session's view as the store has it now, the state the round's last message leaves the
/// replica at.
///
/// | holds | in view now | route |
/// |---|---|---|
/// | yes | yes | its instructions |
/// | yes | no, erased | its instructions (the erase among them); no longer held |
/// | yes | no, exists | its removal; no longer held |
/// | no | yes, created after the cursor | its instructions (its whole life); held |
/// | no | yes, existed before | the whole object; held |
/// | no | no, erased, class subscribed | its creates (without fields) and erases |
/// | no | no | nothing |
///
/// The replica may have an object the server does not know it has: one it created while the
/// server erased it (its create, not yet integrated, will be dropped as concurrent). It learns that
/// only from the remote creates and erases, so those travel without their data.
/// A compensating write forces the whole object, or its removal when it is out of the view.
///
/// A change to what the replica holds is logged at the position of the message that makes it
/// (`SyncStore.rewindHeld` undoes it if the replica never got it): for an object entering by its
/// instructions, the page where it is first routed (its instructions travel there or later; a
/// replica that stops before gets them again from its cursor); for one leaving by them (its erase,
/// which may travel on a later page), for whole objects and for removals, the round's last message.
struct ViewRouter {
    enum Route: Equatable {
        case instructions
        /// Only its creates, without fields, and erases.
        case tombstone
        case replace
        case remove
        case drop
    }

    let reader: any SyncStoreReader
    let view: SessionView
    let user: String
    let fileID: UInt64
    /// The session's cursor when the round began.
    let cursor: UInt64
    private(set) var routes: [ObjectRef: Route] = [:]
    /// What the replica holds after the round, for the objects whose state changes, with the server
    /// version of the page that changes it (nil: the round's last message).
    private(set) var heldChanges: [ObjectRef: (held: Bool, page: UInt64?)] = [:]

    /// The objects as read by every session's router in this call of the server.
    let states: ObjectStates

    init(
        reader: any SyncStoreReader, view: SessionView, user: String, fileID: UInt64, cursor: UInt64,
        states: ObjectStates
    ) {
        self.reader = reader
        self.view = view
        self.user = user
        self.fileID = fileID
        self.cursor = cursor
        self.states = states
    }

    /// The route of `ref`, decided once per round, on the page ending at server version `page`.
    mutating func route(_ ref: ObjectRef, page: UInt64) throws -> Route {
        if let route = routes[ref] { return route }
        let held = try states.holds(fileID, ref, reader)
        let stored = try states.object(ref, reader)
        let inView = try states.isInView(ref, view, user: user, reader)
        let route: Route
        switch (held, inView) {
        case (true, true): route = .instructions
        case (true, false): route = stored?.exists == true ? .remove : .instructions
        case (false, true): route = (stored?.createdAt ?? 0) > cursor ? .instructions : .replace
        case (false, false):
            route = stored?.exists != true && view.classes.contains(ref.className) ? .tombstone : .drop
        }
        // Entering by its instructions, it is held from the page of its first one (its create); leaving
        // by them (an erase), only once the round's last message is through: the erase may travel on
        // a later page than the first instruction, and a replica that stops between must get it again.
        if held != inView { heldChanges[ref] = (inView, route == .instructions && inView ? page : nil) }
        routes[ref] = route
        return route
    }

    /// A compensating write on `ref`: the replica gets the server's object, or loses it.
    mutating func correct(_ ref: ObjectRef) throws {
        let held = try states.holds(fileID, ref, reader)
        let inView = try states.isInView(ref, view, user: user, reader)
        routes[ref] = inView ? .replace : .remove
        heldChanges[ref] = held != inView ? (inView, nil) : nil
    }

    /// The objects to send whole, sorted.
    var replaced: [ObjectRef] { routes.filter { $0.value == .replace }.map(\.key).sorted() }
    /// The objects to remove, sorted.
    var removed: [ObjectRef] { routes.filter { $0.value == .remove }.map(\.key).sorted() }
}
