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
}
