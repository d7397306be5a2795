// Package missions turns mission documents into runnable trees: decoding
// (botd JSON and YAML, and every format registered with RegisterFormat:
// the format packages package formats links), validation that reports
// every problem with its JSON path, compilation into a shared bt.Tree,
// and saving back without loss.
//
// It never talks MQTT and never touches hardware: the daemon feeds it
// bytes and hands the compiled tree to the runner.
//
// The layers, one file each:
//
//   - parse_json.go, parse_yaml.go read bytes into a generic tree of
//     values that keeps number literals exact and finds duplicate keys,
//     with limits on size (MaxDocumentBytes), nesting and YAML alias
//     expansion;
//   - decode.go asks the registered formats (formats.go) which one the
//     document is in; decode_botd.go and the format packages build a
//     Document and report every problem, located by JSON pointer. A
//     format package reads through the format kit (kit.go), and what it
//     keeps of an imported file (its lines, its includes) is the
//     document's Origin; library.go adds the trees of a library (-lib)
//     that a mission calls;
//   - load.go adds the daemon's limits and compiles with a bt.Registry
//     (through the document's Origin, when it has one); compilation
//     problems inside a part that already failed to decode are left out,
//     so each mistake is reported once;
//   - substitute.go reads the stand-in rules (bt.Substitution) that let a
//     tree with nodes botd cannot run be checked and simulated;
//   - encode.go writes botd JSON and YAML and the canonical bytes that
//     revisions are compared and signed by; Export writes a document in
//     a registered format.
//
// Decoded values are plain Go values: float64 for every number, bool,
// string, []any, map[string]any and nil. An empty object or list decodes
// like an absent one and null like an absent member, so that documents
// that say the same thing are equal.
package missions
