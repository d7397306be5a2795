// Package btcpp reads and writes BehaviorTree.CPP v4 XML (Groot2, Nav2,
// and BT.CPP 3 files): it registers the "btcpp" format with missions
// (format.go), so that missions.Decode reads such a file into a botd
// document and `botd export -format btcpp` writes one back.
//
// The layers, one file each:
//
//   - parse.go reads the bytes into a tree of elements under the
//     decoder's limits, and lenient.go first makes the few things
//     tinyxml2 accepts and encoding/xml does not readable (a bare '<' or
//     '&' in an attribute, "--" in a comment, any XML version);
//   - import.go turns the elements into a missions.Document: BT.CPP's
//     built-ins renamed to botd's, attributes typed by the parameters
//     they become, <include>s read relative to the file (only for a file
//     read from disk), <TreeNodesModel> SubTree defaults applied;
//   - faults.go is the document's missions.Origin: where each node's
//     element is, so that every problem names its line (and included
//     file), and the stand-ins for nodes BehaviorTree.CPP loads and fails
//     only when they run (Mission.Notes says which);
//   - models.go keeps a file's <TreeNodesModel> entries as written, and
//     export.go writes a document back as BT.CPP XML with its
//     TreeNodesModel (for Groot2), giving an imported file's own model
//     back; NodesModel is a registry's palette;
//   - instances.go writes a compiled tree as BT.CPP's WriteTreeToXML
//     writes a created tree, which Groot2 reads from a FULLTREE reply
//     and a .btlog (package groot2);
//   - rules.go reads BT.CPP's substitution JSON (TestNodeConfigs,
//     SubstitutionRules) as stand-in rules for
//     missions.LoadSubstitutionFile.
//
// The package reads documents only through missions' format kit
// (missions.Source, Problems, Ptr, DefaultRegistry, ...), as the other
// format packages do; missions itself names no format.
package btcpp
