import Foundation
import Hummingbird

/// A destructive action asks first: its first POST answers with a page that says what will happen
/// and posts the same fields again with `confirmed=yes` (a plain form: no script). The caller passes
/// its texts already translated (`viewer.t("Delete the site %@?", name)`); the page's title and
/// Cancel are translated here.
struct Confirmation {
    var question: String
    var consequence: String
    var button: String
    /// Where Cancel leads.
    var back: String
}

extension Console {
    /// The confirmation page for `request`'s action, or nil when the form says it was confirmed.
    func unconfirmed(
        _ confirmation: Confirmation, request: Request, form: FormData, viewer: Viewer
    ) -> Response? {
        guard form["confirmed"] != "yes" else { return nil }
        let fields = form.items.filter { $0.name != "confirmed" && $0.name != "csrf" }
            .map { ["name": $0.name, "value": $0.value] }
        return page(
            "confirm", title: viewer.t("Are you sure?"), viewer: viewer,
            [
                "question": confirmation.question, "consequence": confirmation.consequence,
                "button": confirmation.button, "back": confirmation.back, "action": request.uri.path,
                "fields": fields,
            ])
    }
}
