import OfflineODataModel
@testable import OfflineODataQuery

/// Builds entities of the test model and evaluates hand-built syntax against them.
enum Eval {
    static let fixedNow = try? EdmDateTimeOffset(parsing: "2024-06-01T12:00:00Z")
    static let evaluator = Evaluator(now: fixedNow)

    static func product(_ pairs: [(String, ODataValue)], type: String = "Ns.Product",
                        navigation: [ODataNavigationValue] = []) -> ODataEntity {
        ODataEntity(typeName: type, properties: pairs.map { ODataProperty($0.0, $0.1) }, navigation: navigation)
    }

    static func value(_ expr: SyntaxExpr, on entity: ODataEntity, set: String = "Products") throws -> ODataValue {
        let bound = try TestModel.binder(set).bind(expr)
        return try evaluator.evaluate(bound, on: entity)
    }

    /// Evaluates an expression that does not depend on the instance.
    static func value(_ expr: SyntaxExpr) throws -> ODataValue {
        try value(expr, on: product([]))
    }

    static func error(_ expr: SyntaxExpr, on entity: ODataEntity = product([])) -> ODataError? {
        do {
            _ = try value(expr, on: entity)
            return nil
        } catch let error as ODataError {
            return error
        } catch {
            return nil
        }
    }

    static func dec(_ text: String) -> ODataValue { (try? ODataValue.parseLiteral(text, as: .decimal)) ?? .null }
    static func dto(_ text: String) -> ODataValue { (try? ODataValue.parseLiteral(text, as: .dateTimeOffset)) ?? .null }
    static func date(_ text: String) -> ODataValue { (try? ODataValue.parseLiteral(text, as: .date)) ?? .null }
    static func dur(_ text: String) -> ODataValue { (try? ODataValue.parseLiteral(text, as: .duration)) ?? .null }
    static func tod(_ text: String) -> ODataValue { (try? ODataValue.parseLiteral(text, as: .timeOfDay)) ?? .null }
}
