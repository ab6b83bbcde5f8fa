/// A range of local dates from a request, checked once: `to` on or after `from`, and at most
/// `maximumDays` days when there is a limit. Each refusal names `to` (422).
public enum DateRange {
    public static func checked(
        from: LocalDate, to: LocalDate, maximumDays: Int? = nil, limit: String? = nil
    ) throws -> ClosedRange<LocalDate> {
        guard from <= to else {
            throw DomainError.field("to", to.description, expected: "a date on or after 'from'", kind: .unprocessable)
        }
        let days = to.dayNumber - from.dayNumber + 1
        if let maximumDays, days > maximumDays {
            throw DomainError.field(
                "to", to.description, expected: limit ?? "at most \(maximumDays) days after 'from' (this is \(days))",
                kind: .unprocessable)
        }
        return from...to
    }
}
