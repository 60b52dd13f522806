// Package switchtwin is a digital twin of an NVIDIA Spectrum-4 switch running
// SONiC, as its gnmi container shows it to a gNMI client: a real gRPC gNMI
// server with an in-memory CONFIG_DB.
//
// It follows sonic-net/sonic-gnmi's native write path (gnmi_server/server.go,
// sonic_data_client/mixed_db_client.go):
//
//   - paths have origin "sonic-db" and the elements CONFIG_DB, localhost,
//     TABLE, KEY, field; a composite key such as "Ethernet0|3" is one element;
//   - Set values must be JSON_IETF and every CONFIG_DB value a string;
//   - one SetRequest is one transaction: deletes, then replaces, then updates
//     are applied to a copy, the result is checked (the per-release GCU
//     allowlist of package sonic, then field validation of the QoS tables the
//     provider writes and references between them), and only then committed;
//   - update is a JSON-patch add: it replaces a whole entry (fields left out
//     vanish); a field path updates one field; replace of a missing path
//     fails; delete of a missing path is ignored;
//   - Get of a missing key or field fails with NotFound "No valid entry
//     found"; Get of an empty table answers nothing;
//   - a rejected Set fails with codes.Unknown, as sonic-gnmi returns the
//     GCU error unconverted; path errors use the codes sonic-gnmi uses.
//
// Around that it models the server's operational behaviour: username and
// password in gRPC metadata, mTLS, idle connections closed after 5 s, a cap
// of 100 connections, grpc-go's default keepalive enforcement (pings more often
// than every 5 minutes, or without a call in flight, end the connection with
// GOAWAY too_many_pings), and injectable faults (FailNextSet,
// FailNextSetButApply for sonic-gnmi#238, ResetNextSet, SlowSet,
// DropConnections).
//
// Not modelled: buffermgrd (BUFFER_PG/BUFFER_PROFILE do not follow
// CABLE_LENGTH, speed or pfc_enable changes), Subscribe, databases other
// than CONFIG_DB, translib/OpenConfig paths, role checks of client
// certificates (GNMI_CLIENT_CERT), full-config operations on the root path,
// and jsonpatch "move" detection in GCU's difference.
package switchtwin
