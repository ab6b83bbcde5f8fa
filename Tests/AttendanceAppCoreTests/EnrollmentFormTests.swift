import AttendanceAppCore
import Foundation
import Testing

@Suite struct EnrollmentFormTests {
    @Test func aTypedCodeIsNormalisedAndHttpsIsAssumed() throws {
        let form = EnrollmentForm(
            serverURL: "  attendance.example.com ", code: "k7p2q 9xmwd", phoneName: "Anna's iPhone ")
        let request = try form.validated().get()
        #expect(request.url.absoluteString == "https://attendance.example.com")
        #expect(request.code == "K7P2Q-9XMWD")
        #expect(request.phoneName == "Anna's iPhone")
        #expect(form.canSubmit)
    }

    @Test func plainHttpOnlyForThisMachine() throws {
        let local = EnrollmentForm(serverURL: "http://127.0.0.1:8080", code: "K7P2Q-9XMWD", phoneName: "Mine")
        #expect(try local.validated().get().url.port == 8080)
        let remote = EnrollmentForm(serverURL: "http://attendance.example.com", code: "K7P2Q-9XMWD", phoneName: "Mine")
        guard case .failure(let errors) = remote.validated() else {
            Issue.record("plain http to another host was accepted"); return
        }
        #expect(errors.fields == [EnrollmentForm.serverField])
        #expect(errors.description.contains("'http://attendance.example.com'"))
    }

    @Test func everyBadFieldIsNamedWithItsValue() {
        guard case .failure(let errors) = EnrollmentForm(serverURL: "https://", code: "K7P2Q-9XMW0").validated() else {
            Issue.record("accepted"); return
        }
        #expect(errors.fields == [EnrollmentForm.serverField, EnrollmentForm.codeField, EnrollmentForm.phoneNameField])
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

    @Test func thePhoneIsNamedByItsOwnerWithinSixtyCharacters() throws {
        #expect(!EnrollmentForm(serverURL: "example.com", code: "K7P2Q-9XMWD", phoneName: "  ").canSubmit)
        for bad in ["   ", String(repeating: "x", count: 61), "Anna\u{7}s phone"] {
            let form = EnrollmentForm(serverURL: "example.com", code: "K7P2Q-9XMWD", phoneName: bad)
            guard case .failure(let errors) = form.validated() else {
                Issue.record("'\(bad)' was accepted as a phone's name"); continue
            }
            #expect(errors.fields == [EnrollmentForm.phoneNameField])
            #expect(errors.errors[0].value == bad)
            #expect(errors.errors[0].expected.english.contains("1 to 60 characters"))
        }
        let sixty = String(repeating: "é", count: 60)
        let named = EnrollmentForm(serverURL: "example.com", code: "K7P2Q-9XMWD", phoneName: sixty)
        #expect(try named.validated().get().phoneName == sixty)
    }
}
