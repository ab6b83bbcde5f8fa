import AttendanceModels

// The server's own records' identifiers, typed like the shared ones (`UserID`, `SiteID`…), so an
// account's id can't be passed where a request's is expected. Each encodes as a bare string.

public enum AccountTag {}
public enum APITokenTag {}
public enum BeaconTag {}
public enum CorrectionRequestTag {}
public enum ScheduleTag {}
public enum AssignmentTag {}

/// A console account (owner, HR, manager, auditor).
public typealias AccountID = Identifier<AccountTag>
/// An API token (its id, not the secret).
public typealias APITokenID = Identifier<APITokenTag>
/// One beacon of a site.
public typealias BeaconID = Identifier<BeaconTag>
/// An employee's correction request.
public typealias CorrectionRequestID = Identifier<CorrectionRequestTag>
/// A work-schedule template.
public typealias ScheduleID = Identifier<ScheduleTag>
/// An employee's assignment to a schedule at a site.
public typealias AssignmentID = Identifier<AssignmentTag>
