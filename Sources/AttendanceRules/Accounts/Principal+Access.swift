import AttendanceModels

extension Principal {
    /// The role a person or machine acts with; nil for a device (devices call only their own
    /// operations). The bootstrap admin token acts as the owner.
    public var role: Role? {
        switch self {
        case .admin: .owner
        case .staff(let staff): staff.role
        case .device: nil
        }
    }

    /// The sites the caller may see.
    public var siteScope: SiteScope {
        switch self {
        case .admin, .device: .all
        case .staff(let staff): staff.scope
        }
    }

    /// Refuses (403) a site outside the caller's scope.
    public func requireSite(_ site: SiteID) throws { try SiteScope.require(site, in: siteScope) }
}
