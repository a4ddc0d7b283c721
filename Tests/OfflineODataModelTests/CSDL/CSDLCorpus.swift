import Foundation

/// Locates `/work/shared/corpora` relative to this file: up to the repository root, then
/// `../shared/corpora`. Tests that need it are disabled when it is absent.
enum CSDLCorpus {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }  // CSDL, OfflineODataModelTests, Tests, file
        return url.deletingLastPathComponent().appendingPathComponent("shared/corpora").path
    }()

    static let available: Bool = FileManager.default.fileExists(
        atPath: root + "/northwind/metadata.xml")

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        let data = try Data(contentsOf: URL(fileURLWithPath: root + "/" + relativePath))
        return [UInt8](data)
    }

    static let metadataFiles = [
        "northwind/metadata.xml",
        "trippin/metadata.xml",
        "gwsample_basic/metadata.xml",
        "gwsample_basic/store-overview/metadata.xml",
        "sepmra_prod_man/metadata.xml",
        "epm_salesorder_v4/metadata.xml",
    ]
}
