import OfflineODataModel

/// Errors of the multipart `$batch` format (docs/LocalService.md §2.5 and §8, docs/Errors.md).
/// Structural errors use `invalidBatch` (3114, in ODataError+Service.swift); the location is
/// the byte offset in the batch body (`offset 123`).
extension ODataError {
    static func serviceOversizeBatchHeader(_ detail: String, _ location: String?) -> ODataError {
        ODataError(.invalidInput, name: "oversizeBatchHeader", code: 3117, message: detail, location: location)
    }

    static func serviceUnknownContentID(_ reference: String, _ location: String?) -> ODataError {
        ODataError(.invalidInput, name: "unknownContentID", code: 3118,
                   message: "'\(reference)' refers to no Content-ID of an earlier request of the batch", location: location)
    }

    static func serviceUnknownBodyReference(_ reference: String, _ location: String?) -> ODataError {
        ODataError(.invalidInput, name: "unknownContentID", code: 3118,
                   message: "'\(reference)' in the request body names no entity created by an earlier request of the batch",
                   location: location)
    }

    /// 424 in the batch response: `id` was not executed because `dependency` (a request or
    /// atomicity group it depends on through `dependsOn` or a `$<id>` reference) failed.
    static func serviceDependencyFailed(_ id: String, on dependency: String) -> ODataError {
        StoreErrorCode.dependencyFailed.error("batch request '\(id)' was not executed: '\(dependency)', which it depends on, failed", at: id)
    }
}
