import PropertyBased
import Testing
@testable import OfflineODataModel

@Suite struct LiteralRoundTripTests {
    @Test func everyKindRoundTripsThroughV4AndV2Literals() async throws {
        for (name, gen) in ValueGen.byKind {
            await propertyCheck(count: 150, input: gen) { value in
                for version in [ODataVersion.v4, .v2] {
                    let text = try value.literal(version: version)
                    let parsed = try parsed(text, like: value, version: version)
                    #expect(parsed.isIdentical(to: value), "\(name) \(version): \(value) → \(text) → \(parsed)")
                }
            }
        }
    }

    @Test func inferredTypeOfV2LiteralsMatchesTheValue() async throws {
        for (name, gen) in ValueGen.byKind where !["byte", "sbyte", "int16", "int32", "enum"].contains(name) {
            await propertyCheck(count: 100, input: gen) { value in
                let text = try value.literal(version: .v2)
                let inferred = try ODataValue.inferLiteral(text, version: .v2)
                if case .date = value {
                    // V2 has no Edm.Date: the literal is a midnight datetime'…'.
                    #expect(inferred.kind == .dateTimeOffset)
                } else if case .timeOfDay = value {
                    #expect(inferred.isIdentical(to: value), "\(name): \(text)")
                } else {
                    #expect(inferred.isIdentical(to: value), "\(name): \(text) inferred as \(inferred)")
                }
            }
        }
    }

    private func parsed(_ text: String, like value: ODataValue, version: ODataVersion) throws -> ODataValue {
        if case .enumValue = value {
            let parsed = try ODataValue.parseEnumLiteral(text)
            guard case .enumValue(let original) = value else { return .null }
            // The literal carries members, not the numeric value the metadata knows.
            return .enumValue(try EdmEnumValue(typeName: parsed.typeName, members: parsed.members,
                                               numericValue: original.numericValue))
        }
        guard let kind = value.kind else { return .null }
        return try ODataValue.parseLiteral(text, as: kind, version: version)
    }
}
