import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceStorage
import Foundation
import Hummingbird
import Logging

/// The services the console's pages call: the same ones the JSON API calls, so a rule is never
/// written twice.
public struct ConsoleServices: Sendable {
    public var repository: any ServerRepository
    /// Where the heavy lists read (the audit, people, sessions, timesheets): the primary, or a
    /// standby while it keeps up; pages read from the standby say as of when.
    public var reads: ReadRoute
    public var admin: AdminService
    public var auth: AuthService
    public var corrections: CorrectionService
    public var requests: RequestService
    public var timesheets: TimesheetService
    public var payPeriods: PayPeriodService
    public var timesheetSettings: TimesheetSettingsService
    public var accounts: AccountService
    public var signIn: SignInService
    public var tokens: APITokenService
    /// The server's last check of the ledger, for the banner owners, HR and auditors see.
    public var ledgerHealth: LedgerHealth

    public init(
        repository: any ServerRepository, reads: ReadRoute? = nil, admin: AdminService, auth: AuthService,
        corrections: CorrectionService,
        requests: RequestService, timesheets: TimesheetService, payPeriods: PayPeriodService,
        timesheetSettings: TimesheetSettingsService, accounts: AccountService, signIn: SignInService,
        tokens: APITokenService, ledgerHealth: LedgerHealth = LedgerHealth()
    ) {
        self.repository = repository
        self.reads = reads ?? ReadRoute(primary: repository)
        self.admin = admin
        self.auth = auth
        self.corrections = corrections
        self.requests = requests
        self.timesheets = timesheets
        self.payPeriods = payPeriods
        self.timesheetSettings = timesheetSettings
        self.accounts = accounts
        self.signIn = signIn
        self.tokens = tokens
        self.ledgerHealth = ledgerHealth
    }
}

/// The web console at `/console` (docs/CONSOLE.md): server-rendered pages for the people who run
/// attendance. Every page checks the viewer's permission through `AccessPolicy`, as the API does,
/// and every POST its CSRF token first.
public struct Console: Sendable {
    let services: ConsoleServices
    let hub: PresenceHub
    let renderer: Renderer
    let logger: Logger
    /// Tells the HTTP layer the route's name and the caller, for the request's log line and metrics.
    let record: @Sendable (String, Principal?) -> Void
    let environment: ServerEnvironment
    /// The sign-in form's signing key (`SignInFormKey`), read once.
    let signInKey = SignInFormKey()

    public init(
        services: ConsoleServices, hub: PresenceHub, logger: Logger,
        record: @escaping @Sendable (String, Principal?) -> Void = { _, _ in },
        environment: ServerEnvironment
    ) throws {
        self.services = services
        self.hub = hub
        self.renderer = try Renderer()
        self.logger = logger
        self.record = record
        self.environment = environment
    }

    /// A page's or an action's work, with the request's form: the POST's body, or a GET's query.
    typealias Handler = @Sendable (Request, AttendanceRequestContext, Viewer, FormData) async throws -> Response

    public func register(on router: Router<AttendanceRequestContext>) {
        let console = router.group("console")
        console.get { request, _ in
            record("console.home", nil)
            var signedIn = false
            if let token = ConsoleSecurity.cookieToken(request) {
                signedIn = try await services.signIn.session(cookieToken: token) != nil
            }
            return Self.redirect(signedIn ? "/console/presence" : "/console/sign-in")
        }
        console.get("static/:file") { _, context in try staticFile(context.parameters.require("file")) }
        registerSignIn(on: console)
        registerPresence(on: console)
        registerOverview(on: console)
        registerExceptions(on: console)
        registerSessions(on: console)
        registerRequests(on: console)
        registerTimesheets(on: console)
        registerPeople(on: console)
        registerImport(on: console)
        registerSites(on: console)
        registerSurveys(on: console)
        registerAccounts(on: console)
        registerSettings(on: console)
        registerAudit(on: console)
        // `/` is the console's door; any other console address is a page that says so.
        router.get("/") { _, _ in Self.redirect("/console") }
        for method in [HTTPRequest.Method.get, .post] {
            console.on("**", method: method) { request, _ in
                record("console.notFound", nil)
                return errorPage(
                    Problem(404, "No such page", words(request).t("the console has no page at %@", request.uri.path)),
                    request: request)
            }
        }
    }

    /// What an account that must set up its second factor can still reach.
    static let reachableWithoutTOTP: Set<String> = [
        "accounts", "enableTOTP", "signOut", "changePassword", "events", "language",
    ]

    /// A page or action behind sign-in: GETs without a session go to the sign-in page, POSTs are
    /// refused unless their CSRF token is the session's, then anything that `needs` a permission
    /// the viewer's role lacks.
    func signedIn(
        _ name: String, needs permission: Permission? = nil, _ handler: @escaping Handler
    )
        -> @Sendable (Request, AttendanceRequestContext) async throws -> Response
    {
        { request, context in
            record("console.\(name)", nil)
            var signedInViewer: Viewer?
            do {
                guard let token = ConsoleSecurity.cookieToken(request),
                    let (session, account) = try await services.signIn.session(cookieToken: token)
                else {
                    if request.method == .get {
                        let asked = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
                        let next = Self.returnPath(asked).map { "?next=" + Pager.encoded($0) } ?? ""
                        return Self.redirect("/console/sign-in" + next)
                    }
                    throw Problem(
                        401, "Signed out", "your sign-in has ended; sign in again and repeat the change")
                }
                let language = Language.chosen(
                    account: account.language, acceptLanguage: request.headers[.acceptLanguage])
                let viewer = Viewer(
                    account: account, session: session, cookieToken: token, words: renderer.words(language))
                signedInViewer = viewer
                record("console.\(name)", viewer.principal)
                // An owner or hr account the owner requires a second factor of sets it up first.
                if !Self.reachableWithoutTOTP.contains(name), try await services.accounts.needsTOTP(account) {
                    if request.method == .get { return Self.redirect("/console/accounts?done=totpNeeded") }
                    throw Problem(
                        403, "Second factor needed",
                        "owner and hr accounts need a second factor; set it up on Accounts first")
                }
                var form = FormData.query(of: request)
                if request.method == .post {
                    if let boundary = FormData.boundary(request.headers[.contentType]) {
                        form = try await FormData.multipart(of: request, boundary: boundary)
                    } else {
                        form = try await FormData.body(of: request)
                    }
                    guard ConsoleSecurity.csrfMatches(form["csrf"], session.csrfToken) else {
                        throw Problem(
                            403, "Form refused",
                            "the form's CSRF token is missing or not this sign-in's; "
                                + "reload the page and submit it again")
                    }
                }
                if let permission { try viewer.require(permission) }
                return try await handler(request, context, viewer, form)
            } catch {
                return errorPage(error, request: request, viewer: signedInViewer)
            }
        }
    }

    /// The language of a request no account speaks for (signed out): the browser's.
    func words(_ request: Request) -> Words {
        renderer.words(Language.chosen(account: nil, acceptLanguage: request.headers[.acceptLanguage]))
    }

    /// The refusal as a page, in the reader's language where the catalogue has its words (the
    /// core's own details, which name a field and what it takes, stay in English).
    func errorPage(_ error: any Error, request: Request, viewer: Viewer? = nil) -> Response {
        let problem: Problem
        switch error {
        case let found as Problem: problem = found
        case let found as DomainError: problem = Problem(found)
        default:
            logger.error("console page failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            problem = Problem(
                500, "Something failed", "the server could not show this page; its log names the error")
        }
        let words = viewer?.words ?? words(request)
        let html = renderer.render(
            "error",
            [
                "title": words.known(problem.title), "detail": words.refusal(problem.detail),
                "status": problem.status, "signedIn": viewer != nil,
            ], in: words.language)
        var response = Self.html(html, status: problem.status)
        if let seconds = problem.retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
        return response
    }

    /// A page in the layout, for `viewer`.
    func page(
        _ template: String, title: String, viewer: Viewer, _ data: [String: Any] = [:], notice: String? = nil,
        status: Int = 200, readAsOf: Date? = nil
    )
        -> Response
    {
        var all = data
        all["title"] = title
        all["nav"] = Navigation.items(for: viewer, current: template)
        all["languages"] = Language.allCases.map {
            ["code": $0.rawValue, "name": $0.name, "current": $0 == viewer.language]
        }
        all["whoami"] = "\(viewer.account.email) (\(Self.roleLabel(viewer.account.role, viewer)))"
        all["csrf"] = viewer.session.csrfToken
        if all["formKey"] == nil { all["formKey"] = environment.newPassword() }
        if let notice { all["notice"] = notice }
        if let readAsOf {
            let seconds = max(0, environment.now().timeIntervalSince(readAsOf))
            all["standby"] = ["seconds": Int(seconds.rounded(.up))]
        }
        if AccessPolicy.allows(viewer.account.role, .readAudit), let failure = services.ledgerHealth.failure {
            all["ledgerFailure"] = [
                "problem": failure.problems.first ?? "", "more": failure.problems.count - 1,
                "at": LocalTime.text(failure.at, zone: "UTC", in: viewer.language),
            ]
        }
        return Self.html(renderer.render(template, all, in: viewer.language), status: status)
    }

    static func html(_ text: String, status: Int = 200) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        ConsoleSecurity.secure(&headers)
        return Response(
            status: .init(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func redirect(_ location: String, cookie: String? = nil) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        if let cookie { headers[.setCookie] = cookie }
        ConsoleSecurity.secure(&headers)
        return Response(status: .seeOther, headers: headers)
    }

    private func staticFile(_ name: String) throws -> Response {
        guard let file = renderer.staticFiles[name] else { throw HTTPError(.notFound) }
        var headers = HTTPFields()
        headers[.contentType] = file.contentType
        ConsoleSecurity.secure(&headers)
        headers[.cacheControl] = "public, max-age=300"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }
}
