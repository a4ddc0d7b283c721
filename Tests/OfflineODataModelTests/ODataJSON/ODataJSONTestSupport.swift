import Foundation
import Testing
@testable import OfflineODataModel

/// The shared corpora (`<repo>/../shared/corpora`), found from this file's path.
enum ODataJSONCorpora {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // ODataJSON
        .deletingLastPathComponent()  // OfflineODataModelTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repo root
        .deletingLastPathComponent()
        .appendingPathComponent("shared/corpora")

    static var available: Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent("northwind/metadata.xml").path)
    }

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(relativePath)))
    }

    static func model(_ folder: String) throws -> ServiceModel {
        try ServiceModel.parse(metadata: try bytes(folder + "/metadata.xml"))
    }
}

/// Test helpers for the OData JSON layer.
enum ODataJSONTesting {
    /// Parses an inline CSDL document.
    static func model(_ xml: String) throws -> ServiceModel {
        try ServiceModel.parse(metadata: Array(xml.utf8))
    }

    /// A V4 CSDL document with one schema `T` (alias `Alias`) holding `body` and a container
    /// `Default` holding `container`.
    static func v4Model(_ body: String, container: String) throws -> ServiceModel {
        try model("""
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:DataServices>
            <Schema Namespace="T" Alias="Alias" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              \(body)
              <EntityContainer Name="Default">\(container)</EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """)
    }

    /// Expects `body` to throw an `ODataError` with the given name, code 12xx and location.
    @discardableResult
    static func expectError(_ name: String, code: Int, path: String? = nil,
                            sourceLocation: SourceLocation = #_sourceLocation,
                            _ body: () throws -> Void) -> ODataError? {
        do {
            try body()
            Issue.record("expected \(name) (\(code)), nothing was thrown", sourceLocation: sourceLocation)
            return nil
        } catch let error as ODataError {
            #expect(error.name == name, "\(error)", sourceLocation: sourceLocation)
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            if let path {
                #expect(error.location?.hasPrefix(path) == true, "location \(error.location ?? "nil") ≠ \(path)",
                        sourceLocation: sourceLocation)
            }
            return error
        } catch {
            Issue.record("unexpected error type: \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Every property value of two entity lists identical (scale, offset kept), navigation included.
    static func expectIdentical(_ a: [ODataEntity], _ b: [ODataEntity], _ label: String,
                                sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.count == b.count, "\(label): \(a.count) vs \(b.count) entities", sourceLocation: sourceLocation)
        #expect(a == b, "\(label): entities differ", sourceLocation: sourceLocation)
        for (index, (x, y)) in zip(a, b).enumerated() where !x.isIdentical(to: y) {
            Issue.record("\(label)[\(index)] not identical:\n\(x)\n\(y)", sourceLocation: sourceLocation)
            return
        }
    }
}
