import QueryBenchKit

/// The peers a run measures, in the order of the report's columns. To plug our store in, add its
/// `QueryPeer` type (named `ours`) first in this list; until then the report's "ours" column
/// shows "—".
var peerTypes: [any QueryPeer.Type] { [ours.self, SQLiteTypedPeer.self, SQLiteJSONPeer.self] }

func peerType(named name: String) -> (any QueryPeer.Type)? {
    peerTypes.first { $0.name == name }
}
