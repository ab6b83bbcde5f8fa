import Foundation

/// A site's wall calendar over a range of dates: where each local day starts and ends as an
/// instant, and which UTC offsets it has. Local midnights come from the IANA zone through
/// Foundation's `Calendar`, so a spring-forward day is 23 hours long and a fall-back day 25.
///
/// The day starts are computed once for the range (a timesheet asks for them hundreds of
/// thousands of times); dates outside it are computed on demand.
public struct SiteCalendar: Sendable {
    public let timeZone: TimeZone
    private let calendar: Calendar
    private let first: LocalDate
    /// `starts[i]` is the first instant of `first + i`; one more than the dates, for the last end.
    private let starts: [Date]

    public init(timeZone: TimeZone, from: LocalDate, through: LocalDate) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.timeZone = timeZone
        self.calendar = calendar
        // A margin of two days each side: sessions that started before the range or run past it.
        let first = from.adding(days: -2)
        self.first = first
        self.starts = first.through(through.adding(days: 3)).map { Self.start(of: $0, calendar: calendar) }
    }

    /// The first instant of `date` (local midnight, or the first valid instant after it where a
    /// zone skips midnight).
    public func start(of date: LocalDate) -> Date {
        let index = date.dayNumber - first.dayNumber
        return starts.indices.contains(index) ? starts[index] : Self.start(of: date, calendar: calendar)
    }

    /// The local date `instant` falls on in `zone`, for a single question (no range to cache).
    public static func date(of instant: Date, in zone: TimeZone) -> LocalDate {
        SiteCalendar(timeZone: zone, from: LocalDate(dayNumber: 0), through: LocalDate(dayNumber: 0)).date(of: instant)
    }

    /// The first instant of `date` in `zone`, for a single question.
    public static func start(of date: LocalDate, in zone: TimeZone) -> Date {
        SiteCalendar(timeZone: zone, from: date, through: date).start(of: date)
    }

    /// The first instant of the next day.
    public func end(of date: LocalDate) -> Date { start(of: date.adding(days: 1)) }

    /// The local date `instant` falls on.
    public func date(of instant: Date) -> LocalDate {
        if let firstStart = starts.first, let lastStart = starts.last, instant >= firstStart, instant < lastStart {
            var low = 0
            var high = starts.count - 1
            while high - low > 1 {
                let middle = (low + high) / 2
                if starts[middle] <= instant { low = middle } else { high = middle }
            }
            return first.adding(days: low)
        }
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        return LocalDate(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
            ?? LocalDate(dayNumber: Int((instant.timeIntervalSince1970 / 86_400).rounded(.down)))
    }

    /// The instant of `minute` minutes past local midnight on `date`, by the wall clock: 07:00 is
    /// 07:00 on a DST day too. As RFC 5545 reads a local time: one the zone skips (02:30 on
    /// Berlin's spring-forward night) is read with the offset before the gap, so it falls as far
    /// past the gap (03:30 CEST); one the zone repeats (02:30 on the fall-back night) is its first
    /// occurrence (02:30 CEST).
    public func instant(_ date: LocalDate, minute: Int) -> Date {
        let day = date.adding(days: minute / 1440)
        let inDay = minute % 1440
        let parts = DateComponents(
            calendar: calendar, timeZone: timeZone, year: day.year, month: day.month, day: day.day,
            hour: inDay / 60, minute: inDay % 60)
        return calendar.date(from: parts) ?? start(of: day).addingTimeInterval(Double(inDay * 60))
    }

    /// Seconds east of UTC at `instant`.
    public func offsetSeconds(at instant: Date) -> Int { timeZone.secondsFromGMT(for: instant) }

    /// The distinct UTC offsets in effect during `date`, in order (one, or two on a DST day).
    public func offsets(on date: LocalDate) -> [Int] {
        let opening = offsetSeconds(at: start(of: date))
        let closing = offsetSeconds(at: end(of: date).addingTimeInterval(-1))
        return opening == closing ? [opening] : [opening, closing]
    }

    private static func start(of date: LocalDate, calendar: Calendar) -> Date {
        let parts = DateComponents(year: date.year, month: date.month, day: date.day)
        let noon = calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day, hour: 12))
        return calendar.date(from: parts).map { calendar.startOfDay(for: $0) }
            ?? noon.map { calendar.startOfDay(for: $0) }
            ?? Date(timeIntervalSince1970: Double(date.dayNumber) * 86_400)
    }
}

/// `+05:30`, `-04:00`, `+00:00`.
public func utcOffsetText(_ seconds: Int) -> String {
    let sign = seconds < 0 ? "-" : "+"
    let minutes = abs(seconds) / 60
    return sign + zeroPadded(minutes / 60, 2) + ":" + zeroPadded(minutes % 60, 2)
}
