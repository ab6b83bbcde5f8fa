import Foundation

/// A survey as the server keeps it: the site's id, who took it with which phone, and when it
/// arrived. `userId` is nil once that person was erased (the survey is the site's).
public struct StoredSurvey: Hashable, Sendable {
    public var id: Int64
    public var siteId: SiteID
    public var deviceId: DeviceID
    public var userId: UserID?
    public var receivedAt: Date
    public var survey: SiteSurvey

    public init(
        id: Int64, siteId: SiteID, deviceId: DeviceID, userId: UserID?, receivedAt: Date, survey: SiteSurvey
    ) {
        self.id = id
        self.siteId = siteId
        self.deviceId = deviceId
        self.userId = userId
        self.receivedAt = receivedAt
        self.survey = survey
    }
}
