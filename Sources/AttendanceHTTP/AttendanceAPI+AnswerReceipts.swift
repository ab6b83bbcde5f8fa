import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation

/// A device event's receipt in its answer (LEDGER.md, "Receipts"). The stored answer stays the
/// bytes the ingest transaction wrote; the receipt, the same for the first answer and a replay
/// (`AnswerReceipts`), is added as the object's last member: `receipt` in a single event's
/// answer, `receipts` (by item key) in a batch's.
extension AttendanceAPI {
    /// A 2xx answer to one of the calling device's events, with the receipt of the row it is.
    func withReceipt(_ reply: StoredReply, for request: DeviceRequest) async -> StoredReply {
        guard let answerReceipts, (200..<300).contains(reply.status), let (device, _) = try? Caller.device() else {
            return reply
        }
        let ref = Self.ref(request)
        guard let found = await answerReceipts.receipts(device: device, events: [ref])[ref],
            let value = try? Wire.encode(Self.receipt(found))
        else { return reply }
        return Self.adding("receipt", value, to: reply)
    }

    /// A batch's answer, with the receipts of the rows its 2xx items are.
    func withReceipts(_ reply: StoredReply, for batch: DeviceBatch) async -> StoredReply {
        guard let answerReceipts, reply.status == 200, let (device, _) = try? Caller.device(),
            let answer = try? Wire.decode(Components.Schemas.EventBatchResponse.self, from: reply.body)
        else { return reply }
        let answered: [(key: String, ref: DeviceEventRef)] = zip(batch.items, answer.results).compactMap {
            item, result in
            guard (200..<300).contains(result.status), case .request(let key, let request) = item else { return nil }
            return (key, Self.ref(request))
        }
        let found = await answerReceipts.receipts(device: device, events: answered.map(\.ref))
        let receipts = answered.compactMap { key, ref in
            found[ref].map { Components.Schemas.BatchReceipt(idempotencyKey: key, receipt: Self.receipt($0)) }
        }
        guard !receipts.isEmpty, let value = try? Wire.encode(receipts) else { return reply }
        return Self.adding("receipts", value, to: reply)
    }

    /// The ledger row a device's event is.
    static func ref(_ request: DeviceRequest) -> DeviceEventRef {
        switch request.event {
        case .checkIn(let event): DeviceEventRef(sessionKey: SessionKey(event.sessionKey), kind: .checkIn, at: event.at)
        case .checkOut(let event):
            DeviceEventRef(sessionKey: SessionKey(event.sessionKey), kind: .checkOut, at: event.at)
        case .heartbeat(let event):
            DeviceEventRef(sessionKey: SessionKey(event.sessionKey), kind: .heartbeat, at: event.at)
        }
    }

    static func receipt(_ found: AnswerReceipt) -> Components.Schemas.EventReceipt {
        .init(
            rowId: found.receipt.rowId, leafIndex: found.receipt.leafIndex, entry: found.receipt.entry,
            proof: found.receipt.proof.map { Data($0).base64EncodedString() }, checkpoint: found.checkpoint)
    }

    /// `reply`'s JSON object with `"name": value` as its last member (the reply as it was when its
    /// body is not an object).
    static func adding(_ name: String, _ value: Data, to reply: StoredReply) -> StoredReply {
        let body = reply.body
        let whitespace: Set<UInt8> = [0x20, 0x0A, 0x0D, 0x09]
        guard let close = body.lastIndex(where: { !whitespace.contains($0) }), body[close] == UInt8(ascii: "}"),
            let open = body.firstIndex(where: { !whitespace.contains($0) }), body[open] == UInt8(ascii: "{")
        else { return reply }
        let empty = body[body.index(after: open)..<close].allSatisfy { whitespace.contains($0) }
        var spliced = Data(body[..<close])
        spliced.append(contentsOf: Array((empty ? "" : ",").utf8) + Array("\"\(name)\":".utf8))
        spliced.append(value)
        spliced.append(contentsOf: body[close...])
        var answer = reply
        answer.body = spliced
        return answer
    }
}
