"""The OData V4 back end of the integration tests: odatapy (pinned in requirements.txt) serving
our own model (model.xml) and seed data (seed.json) on loopback.

    python server.py [--port 0] [--model model.xml] [--seed seed.json] [--page-size N]
                     [--extra-property Set:Name:Edm.Type]

Prints `PORT <n>` on its first line once it listens, then serves until killed. The data lives
in memory: a restart is a reset. `--extra-property` adds a property to an entity type, for the
schema-upgrade test (the server restarted with one more property).

The action import ConfirmSalesOrder(SalesOrderID, Note) sets the order's Note (a new ETag) and
answers 204; an unknown order is a 404. It is what a back end does with an action an app
invoked offline (stock odatapy's in-memory processor implements no action).

Two things differ from stock odatapy, as a back end that derives navigation from foreign keys
behaves (SAP Gateway, CAP): navigation is read from the ReferentialConstraints instead of
odatapy's separate relation table, so an order POSTed with only its BusinessPartnerID shows up
under its partner; and the Notes set has server-generated keys that discard a client's key
(an SAP number range).

Photos are media entities (HasStream): a seed row's "@media" (base64) and "@mediaType" are its
stream, served at Photos(n)/$value with the media ETag W/"m1"; POST Photos with bytes creates
one (odatapy assigns the next PhotoID), PUT Photos(n)/$value replaces its stream.
"""

from __future__ import annotations

import argparse
import base64
import decimal
import json
import os
import socketserver
import sys
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from odatapy.data import Entity
from odatapy.edm.csdl import CsdlAbstractEdmProvider, CsdlProperty
from odatapy.edm.xml_io import parse_metadata_document
from odatapy.server.adapters.wsgi import ODataWSGIApp
from odatapy.server.inmemory import InMemoryDataStore, InMemoryProcessor
from odatapy.server.odata import OData
from odatapy.errors import ODataApplicationException
from odatapy.server.processor import ActionProcessor, CustomETagSupport

HERE = os.path.dirname(os.path.abspath(__file__))


class Provider(CsdlAbstractEdmProvider):
    def __init__(self, schemas):
        self.schemas = schemas

    def get_schemas(self):
        return self.schemas


class ETags(CustomETagSupport):
    def has_etag(self, entity_set_or_singleton):
        return True


class ForeignKeyProcessor(InMemoryProcessor):
    """Navigation from the foreign keys (ReferentialConstraints), both directions."""

    def _related(self, owner_set, owner_key, owner, nav):
        target_set = self._nav_target_set(owner_set, nav.name)
        constraints = nav.referential_constraints
        pairs = []
        if constraints:
            # Many-to-one: the owner holds the foreign key.
            pairs = [(rc.referenced_property, owner.get_value(rc.property)) for rc in constraints]
        else:
            partner = nav.partner_property
            if partner is not None and partner.referential_constraints:
                # One-to-many: the targets hold the foreign key.
                pairs = [(rc.property, owner.get_value(rc.referenced_property)) for rc in partner.referential_constraints]
        if target_set is None or not pairs:
            return super()._related(owner_set, owner_key, owner, nav)
        return [t for t in self.store.entities(target_set.name)
                if all(t.get_value(name) == value for name, value in pairs)]

    def _assign_keys(self, entity_set, entity):
        if self.store.is_key_auto_generating(entity_set.name):
            for name in entity_set.entity_type.key_predicate_names:
                prop = entity.get_property(name)
                if prop is not None:
                    entity.properties.remove(prop)
        return super()._assign_keys(entity_set, entity)


class Actions(ActionProcessor):
    """ConfirmSalesOrder: the order's Note becomes the parameter's (its ETag moves)."""

    def __init__(self, store):
        self.store = store

    def process_action(self, request, response, uri_info, request_ct, response_ct):
        try:
            parameters = json.loads(request.body or b"{}")
        except ValueError:
            raise ODataApplicationException("The action's body is not JSON.", 400)
        order_id = parameters.get("SalesOrderID")
        with self.store.lock:
            for entity in self.store.entities("SalesOrders"):
                if entity.get_value("SalesOrderID") == order_id:
                    entity.set_property("Note", parameters.get("Note"), type_name="Edm.String")
                    version = int((entity.etag or 'W/"1"').strip('W/"') or "1")
                    entity.etag = f'W/"{version + 1}"'
                    # Tracked like any change, so that a delta link brings it.
                    self.store.record_change("SalesOrders", entity, "changed")
                    response.status_code = 204
                    return
        raise ODataApplicationException(f"No sales order '{order_id}'.", 404)

    def process_action_void(self, request, response, uri_info, request_ct):
        self.process_action(request, response, uri_info, request_ct, None)


def typed(value, type_name):
    if value is None:
        return None
    if type_name == "Edm.Decimal":
        return decimal.Decimal(value)
    if type_name in ("Edm.Int32", "Edm.Int64", "Edm.Int16", "Edm.Byte"):
        return int(value)
    return value


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--model", default=os.path.join(HERE, "model.xml"))
    parser.add_argument("--seed", default=os.path.join(HERE, "seed.json"))
    parser.add_argument("--page-size", type=int, default=None)
    parser.add_argument("--extra-property", action="append", default=[])
    args = parser.parse_args()

    with open(args.model, "rb") as f:
        schemas, _ = parse_metadata_document(f.read())
    for spec in args.extra_property:
        type_name, prop_name, prop_type = spec.split(":")
        for schema in schemas:
            for entity_type in schema.entity_types:
                if entity_type.name == type_name:
                    entity_type.properties.append(CsdlProperty(name=prop_name, type=prop_type, nullable=True))

    types = {}
    sets = {}
    for schema in schemas:
        for entity_type in schema.entity_types:
            types[schema.namespace + "." + entity_type.name] = {p.name: p.type for p in entity_type.properties}
        if schema.entity_container is not None:
            for entity_set in schema.entity_container.entity_sets:
                sets[entity_set.name] = types.get(entity_set.type) or types.get(str(entity_set.type))

    with open(args.seed) as f:
        seed = json.load(f)
    store = InMemoryDataStore()
    for set_name, rows in seed.items():
        if set_name not in sets:
            continue   # a model without the set (model-key-changed.xml has no Photos)
        property_types = sets[set_name]
        entities = []
        for row in rows:
            entity = Entity()
            for name, value in row.items():
                if name.startswith("@"):
                    continue
                entity.set_property(name, typed(value, property_types.get(name)), type_name=property_types.get(name))
            # Every seeded entity starts at version 1, so collections carry @odata.etag (odatapy
            # only assigns one when an entity is first read on its own).
            entity.etag = 'W/"1"'
            # Media entities: "@media" is the stream (base64), "@mediaType" its content type.
            if "@media" in row:
                entity.media_content = base64.b64decode(row["@media"])
                entity.media_content_type = row.get("@mediaType", "application/octet-stream")
                entity.media_etag = 'W/"m1"'
            entities.append(entity)
        store.set_entities(set_name, entities)
    store.declare_key_auto_generating("Notes")

    odata = OData.new_instance()
    handler = odata.create_handler(odata.create_service_metadata(Provider(schemas)))
    handler.register(ForeignKeyProcessor(store, page_size=args.page_size))
    handler.register(ETags())
    handler.register(Actions(store))
    app = ODataWSGIApp(handler)

    class Server(socketserver.ThreadingMixIn, WSGIServer):
        daemon_threads = True

    class Quiet(WSGIRequestHandler):
        def log_message(self, format, *args):
            pass

    httpd = make_server("127.0.0.1", args.port, app, server_class=Server, handler_class=Quiet)
    print(f"PORT {httpd.server_address[1]}", flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
