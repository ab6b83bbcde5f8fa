import AttendanceRules
import AttendanceServer

/// A page-level refusal: the status, a title that names the problem, and what to do.
struct ConsoleProblem: Error, Sendable {
    var status: Int
    var title: String
    var detail: String

    init(_ status: Int, _ title: String, _ detail: String) {
        self.status = status
        self.title = title
        self.detail = detail
    }

    init(_ problem: Problem) { self.init(problem.status, problem.title, problem.detail) }

    static func forbidden(_ what: String) -> ConsoleProblem {
        ConsoleProblem(403, "Not allowed", what)
    }
}
