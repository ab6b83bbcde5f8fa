import Foundation

/// A batch's items as sent: each one's key, type and payload (kept as JSON), so that a bad payload
/// is its own item's refusal, as its single endpoint would answer it, and never the batch's.
struct BatchItem {
    var idempotencyKey: String
    var endpoint: IngestService.Endpoint
    var payload: Data

    /// The items, or the problem that refuses the whole batch (not an object with `events`).
    /// An item that can't be processed at all is its refusal, without a key to store it under.
    static func parse(_ body: Data) -> Result<[(key: String, item: Result<BatchItem, Problem>)], Problem> {
        guard let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let events = root["events"] as? [Any] else {
            return .failure(
                Problem(400, "Invalid request", "the body is not an event batch: expected {\"events\": [ … ]}"))
        }
        return .success(events.enumerated().map { index, element in
            (((element as? [String: Any])?["idempotencyKey"] as? String) ?? "", item(element, index: index))
        })
    }

    private static func item(_ element: Any, index: Int) -> Result<BatchItem, Problem> {
        let field = "events[\(index)]"
        guard let object = element as? [String: Any] else {
            return .failure(Problem.field(field, nil, expected: "an object with idempotencyKey, type and its payload"))
        }
        guard let key = object["idempotencyKey"] as? String else {
            return .failure(Problem.field(field + ".idempotencyKey", nil, expected: InputRules.identifierExpectation))
        }
        do { try InputRules.identifier(field + ".idempotencyKey", key) } catch let problem as Problem {
            return .failure(problem)
        } catch {
            return .failure(Problem.field(field + ".idempotencyKey", key, expected: InputRules.identifierExpectation))
        }
        let type = object["type"] as? String ?? ""
        guard let endpoint = IngestService.Endpoint(rawValue: type) else {
            return .failure(Problem.field(field + ".type", type, expected: "checkIn, checkOut or heartbeat"))
        }
        let present = ["checkIn", "checkOut", "heartbeat"].filter { object[$0] != nil }
        guard present == [type], let payload = object[type] as? [String: Any],
              let data = try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]) else {
            return .failure(
                Problem.field(field + "." + type, nil, expected: "exactly one payload, the one named by 'type'"))
        }
        return .success(BatchItem(idempotencyKey: key, endpoint: endpoint, payload: data))
    }
}
