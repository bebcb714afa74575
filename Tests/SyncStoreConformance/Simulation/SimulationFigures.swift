import RealmSync

/// The figures of runs, added up and printed.
extension Simulation.Figures: CustomStringConvertible {
    mutating func add(_ other: Simulation.Figures) {
        replicas += other.replicas
        commits += other.commits
        steps += other.steps
        clientCrashes += other.clientCrashes
        serverCrashes += other.serverCrashes
        integratedChangesets += other.integratedChangesets
        transport.delivered += other.transport.delivered
        transport.duplicated += other.transport.duplicated
        transport.dropped += other.transport.dropped
        transport.lost += other.transport.lost
    }

    var description: String {
        "\(replicas) replicas, \(steps) steps, \(commits) commits, \(integratedChangesets) changesets integrated, "
            + "\(transport.delivered) messages delivered, \(transport.duplicated) uploads duplicated, "
            + "\(transport.dropped) connections dropped (\(transport.lost) messages lost), "
            + "\(clientCrashes) client crashes, \(serverCrashes) server crashes"
    }
}

extension ViewSimulation.Figures: CustomStringConvertible {
    mutating func add(_ other: ViewSimulation.Figures) {
        base.add(other.base)
        subscriptionSets += other.subscriptionSets
        refusedSets += other.refusedSets
        refusedLocalWrites += other.refusedLocalWrites
        compensatingWrites += other.compensatingWrites
        auditedObjects += other.auditedObjects
    }

    var description: String {
        "\(base); \(subscriptionSets) subscription sets (\(refusedSets) refused), \(refusedLocalWrites) local writes "
            + "to unsubscribed classes refused, \(compensatingWrites) compensating writes, "
            + "\(auditedObjects) objects audited in messages"
    }
}
