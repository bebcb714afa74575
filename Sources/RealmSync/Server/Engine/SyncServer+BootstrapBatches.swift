/// How a bootstrap is cut into messages.
extension SyncServer {
    /// What a bootstrap message takes besides its objects: the codec's header, its tag, session,
    /// three versions, a count, a flag, a fraction, a query version and an empty list of removals
    /// (at most 70 bytes as varints go), rounded up. A view change's removals ride on its last
    /// batch and are not counted.
    static let bootstrapFieldsBytes = 80

    /// `objects` in order, in batches of at most `options.bootstrapBatchSize` objects and, with
    /// `maxMessageBytes`, of at most that many bytes as a message. An object over the budget alone
    /// goes alone. Never none: an empty view is one empty batch (the replica still hears its
    /// bootstrap end).
    func bootstrapBatches(_ objects: [ObjectSnapshot]) -> [[ObjectSnapshot]] {
        let size = options.bootstrapBatchSize
        guard let budget = maxMessageBytes else {
            return stride(from: 0, to: max(1, objects.count), by: size).map {
                Array(objects[$0..<min($0 + size, objects.count)])
            }
        }
        var batches: [[ObjectSnapshot]] = []
        var batch: [ObjectSnapshot] = []
        var batchBytes = Self.bootstrapFieldsBytes
        for object in objects {
            let bytes = SyncMessageCodec.encodedSize(of: object)
            if !batch.isEmpty && (batch.count == size || batchBytes + bytes > budget) {
                batches.append(batch)
                batch = []
                batchBytes = Self.bootstrapFieldsBytes
            }
            batch.append(object)
            batchBytes += bytes
        }
        if !batch.isEmpty || batches.isEmpty { batches.append(batch) }
        return batches
    }
}
