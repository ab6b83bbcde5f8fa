import AttendanceAppCore
import Foundation
import Testing

@Suite struct EnrollmentFormTests {
    @Test func aTypedCodeIsNormalisedAndHttpsIsAssumed() throws {
        let form = EnrollmentForm(serverURL: "  attendance.example.com ", code: "k7p2q 9xmwd")
        let request = try form.validated().get()
        #expect(request.url.absoluteString == "https://attendance.example.com")
        #expect(request.code == "K7P2Q-9XMWD")
        #expect(form.canSubmit)
    }

    @Test func plainHttpOnlyForThisMachine() throws {
        #expect(try EnrollmentForm(serverURL: "http://127.0.0.1:8080", code: "K7P2Q-9XMWD").validated().get().url.port == 8080)
        guard case .failure(let errors) = EnrollmentForm(serverURL: "http://attendance.example.com", code: "K7P2Q-9XMWD").validated() else {
            Issue.record("plain http to another host was accepted"); return
        }
        #expect(errors.fields == [EnrollmentForm.serverField])
        #expect(errors.description.contains("'http://attendance.example.com'"))
    }

    @Test func everyBadFieldIsNamedWithItsValue() {
        guard case .failure(let errors) = EnrollmentForm(serverURL: "https://", code: "K7P2Q-9XMW0").validated() else {
            Issue.record("accepted"); return
        }
        #expect(errors.fields == [EnrollmentForm.serverField, EnrollmentForm.codeField])
        #expect(errors.errors[1].value == "K7P2Q-9XMW0")
        #expect(errors.errors[1].expected.english.contains("no 0, O, 1, I or L"))
        #expect(!EnrollmentForm(serverURL: "", code: "").canSubmit)
    }

    @Test func theFlowGoesThroughSubmittingAndEditingClearsAFailure() {
        var form = EnrollmentForm(serverURL: "example.com", code: "K7P2Q-9XMWD")
        form.submitting()
        #expect(!form.canSubmit)
        form.failed("This enrollment code was already used")
        #expect(form.phase == .failed("This enrollment code was already used"))
        form.edited()
        #expect(form.phase == .editing)
        form.enrolled(userID: "alice")
        #expect(form.phase == .enrolled(userID: "alice"))
    }
}
