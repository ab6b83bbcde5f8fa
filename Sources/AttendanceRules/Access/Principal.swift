import AttendanceModels
import Foundation

/// Who is calling, from the bearer token.
public enum Principal: Hashable, Sendable {
    /// The bootstrap admin token (`ATTENDANCE_ADMIN_TOKEN`), which acts as the owner.
    case admin
    /// A console sign-in or an API token, acting through an account.
    case staff(StaffIdentity)
    case device(DeviceID, user: UserID)

    /// Idempotency keys are scoped per caller.
    package var scope: String {
        switch self {
        case .admin: return "admin"
        case .staff(let staff): return "account:\(staff.accountId)"
        case .device(let device, _): return "device:\(device.rawValue)"
        }
    }
}
