// btcpp-runner loads a BehaviorTree.CPP XML file with BehaviorTree.CPP
// itself and ticks it, for botd's differential tests (see README.md).
//
// Every node type the file's <TreeNodesModel> declares and BehaviorTree.CPP
// does not know is registered as botd's '*=Succeed' stand-in: an action or
// condition returns SUCCESS, a decorator passes its child's status through,
// a control node returns SUCCESS without ticking its children. Their ports
// are untyped: a real node's types are unknown here, and a guessed type
// clashes with the typed ports of BT.CPP's nodes on a shared key (the
// price: BT.CPP's SetBlackboard cannot convert a string into an untyped
// entry, and throws where the real node's port would have had a type).
//
// With -auto it also stands in for the node types used in the file (and
// its -lib files and includes) that nothing declares, by their shape (no
// child: a leaf whose attributes are its ports; one: a decorator; more: a
// control node), and for every SubTree whose tree no file holds (a tree
// of one AlwaysSuccess), so that a project's file can be loaded as botd
// loads it with '*=Succeed'. -lib FILE registers another file's trees
// first (a MoveIt Pro objective's siblings).
//
// Usage: btcpp-runner [-auto] [-lib FILE]... [-ticks N] [-period-ms P] FILE
// Output, one line per tick: the root's status (RUNNING, SUCCESS, FAILURE,
// SKIPPED). On a load error: "LOAD <message>" and exit status 2; on an
// exception while ticking: "THROW <message>" and exit status 3.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "behaviortree_cpp/bt_factory.h"
#include "tinyxml2.h"

namespace
{

class StandInLeaf : public BT::SyncActionNode
{
public:
  StandInLeaf(const std::string& name, const BT::NodeConfig& config)
    : BT::SyncActionNode(name, config)
  {}
  BT::NodeStatus tick() override { return BT::NodeStatus::SUCCESS; }
};

class PassThrough : public BT::DecoratorNode
{
public:
  PassThrough(const std::string& name, const BT::NodeConfig& config)
    : BT::DecoratorNode(name, config)
  {}
  BT::NodeStatus tick() override
  {
    const BT::NodeStatus st = child()->executeTick();
    if(st == BT::NodeStatus::SUCCESS || st == BT::NodeStatus::FAILURE)
    {
      resetChild();
    }
    return st;
  }
};

class StandInControl : public BT::ControlNode
{
public:
  StandInControl(const std::string& name, const BT::NodeConfig& config)
    : BT::ControlNode(name, config)
  {}
  BT::NodeStatus tick() override { return BT::NodeStatus::SUCCESS; }
};

BT::PortsList modelPorts(const tinyxml2::XMLElement* model)
{
  BT::PortsList ports;
  for(auto p = model->FirstChildElement(); p != nullptr; p = p->NextSiblingElement())
  {
    const char* name = p->Attribute("name");
    if(name == nullptr)
    {
      continue;
    }
    const std::string tag = p->Name();
    if(tag == "input_port")
    {
      ports.insert(BT::InputPort(name));
    }
    else if(tag == "output_port")
    {
      ports.insert(BT::OutputPort(name));
    }
    else if(tag == "inout_port")
    {
      ports.insert(BT::BidirectionalPort(name));
    }
  }
  return ports;
}

// registerModels registers the stand-ins for the declared node types that
// the factory does not know.
void registerModels(BT::BehaviorTreeFactory& factory, const char* path)
{
  tinyxml2::XMLDocument doc;
  if(doc.LoadFile(path) != tinyxml2::XML_SUCCESS)
  {
    throw BT::RuntimeError("cannot read ", path, ": ", doc.ErrorStr());
  }
  const auto* root = doc.RootElement();
  const auto* models = root != nullptr ? root->FirstChildElement("TreeNodesModel") : nullptr;
  if(models == nullptr)
  {
    return;
  }
  for(auto m = models->FirstChildElement(); m != nullptr; m = m->NextSiblingElement())
  {
    const std::string kind = m->Name();
    const char* id = m->Attribute("ID");
    if(id == nullptr || kind == "SubTree" || factory.builders().count(id) != 0)
    {
      continue;
    }
    BT::TreeNodeManifest manifest;
    manifest.registration_ID = id;
    manifest.ports = modelPorts(m);
    if(kind == "Action" || kind == "Condition")
    {
      manifest.type = kind == "Action" ? BT::NodeType::ACTION : BT::NodeType::CONDITION;
      factory.registerBuilder(manifest, BT::CreateBuilder<StandInLeaf>());
    }
    else if(kind == "Decorator")
    {
      manifest.type = BT::NodeType::DECORATOR;
      factory.registerBuilder(manifest, BT::CreateBuilder<PassThrough>());
    }
    else if(kind == "Control")
    {
      manifest.type = BT::NodeType::CONTROL;
      factory.registerBuilder(manifest, BT::CreateBuilder<StandInControl>());
    }
  }
}

// isModelTag tells the tags that name their node type in an ID attribute
// (format 3, and Groot's generic form).
bool isModelTag(const std::string& tag)
{
  return tag == "Action" || tag == "Condition" || tag == "Control" || tag == "Decorator";
}

// Shape is what the files say of a node type nothing declares: the most
// children it has anywhere and every attribute it is given.
struct Shape
{
  int children = 0;
  std::set<std::string> ports;
};

// collectUnknown walks the elements of a tree and records the shape of
// every node type the factory does not know (an element named after a
// tree is not a stand-in: BT.CPP 4 calls trees only through SubTree), and
// the SubTree IDs called.
void collectUnknown(const BT::BehaviorTreeFactory& factory, const tinyxml2::XMLElement* e,
                    const std::set<std::string>& defined, std::map<std::string, Shape>& shapes,
                    std::set<std::string>& called)
{
  for(auto n = e->FirstChildElement(); n != nullptr; n = n->NextSiblingElement())
  {
    std::string type = n->Name();
    if(type == "SubTree")
    {
      if(const char* id = n->Attribute("ID"))
      {
        called.insert(id);
      }
      continue;
    }
    if(isModelTag(type) && n->Attribute("ID") != nullptr)
    {
      type = n->Attribute("ID");
    }
    if(factory.builders().count(type) == 0 && defined.count(type) == 0)
    {
      Shape& shape = shapes[type];
      int children = 0;
      for(auto c = n->FirstChildElement(); c != nullptr; c = c->NextSiblingElement())
      {
        children++;
      }
      shape.children = std::max(shape.children, children);
      for(auto a = n->FirstAttribute(); a != nullptr; a = a->Next())
      {
        const std::string name = a->Name();
        if(name != "name" && name != "ID" && name[0] != '_')
        {
          shape.ports.insert(name);
        }
      }
    }
    collectUnknown(factory, n, defined, shapes, called);
  }
}

// registerShapes registers a stand-in for each shape: no child, a leaf
// (its attributes are its ports); one, a decorator; more, a control node.
void registerShapes(BT::BehaviorTreeFactory& factory, const std::map<std::string, Shape>& shapes)
{
  for(const auto& [type, shape] : shapes)
  {
    BT::TreeNodeManifest manifest;
    manifest.registration_ID = type;
    for(const auto& port : shape.ports)
    {
      manifest.ports.insert(BT::BidirectionalPort(port));
    }
    if(shape.children == 0)
    {
      manifest.type = BT::NodeType::ACTION;
      factory.registerBuilder(manifest, BT::CreateBuilder<StandInLeaf>());
    }
    else if(shape.children == 1)
    {
      manifest.type = BT::NodeType::DECORATOR;
      factory.registerBuilder(manifest, BT::CreateBuilder<PassThrough>());
    }
    else
    {
      manifest.type = BT::NodeType::CONTROL;
      factory.registerBuilder(manifest, BT::CreateBuilder<StandInControl>());
    }
  }
}

// registerUnknown reads files (the tree file, then its library) and
// registers stand-ins for the node types none of them declares, and a
// tree that returns SUCCESS for every SubTree ID no file defines (botd's
// '*=Succeed' does both). Included files are read relative to the file
// that includes them.
void registerUnknown(BT::BehaviorTreeFactory& factory, const std::vector<std::string>& files)
{
  std::map<std::string, Shape> shapes;
  std::set<std::string> called;
  std::set<std::string> defined;
  tinyxml2::XMLDocument keep;  // the trees of every file, walked once all are read
  std::vector<const tinyxml2::XMLElement*> trees;
  std::vector<std::string> queue = files;
  std::set<std::string> seen;
  while(!queue.empty())
  {
    const std::string path = queue.back();
    queue.pop_back();
    if(!seen.insert(path).second)
    {
      continue;
    }
    tinyxml2::XMLDocument doc;
    if(doc.LoadFile(path.c_str()) != tinyxml2::XML_SUCCESS)
    {
      continue;  // the factory reports it
    }
    const auto* root = doc.RootElement();
    if(root == nullptr)
    {
      continue;
    }
    const std::string dir = std::filesystem::path(path).parent_path().string();
    for(auto e = root->FirstChildElement(); e != nullptr; e = e->NextSiblingElement())
    {
      const std::string tag = e->Name();
      if(tag == "BehaviorTree")
      {
        if(const char* id = e->Attribute("ID"))
        {
          defined.insert(id);
        }
        trees.push_back(e->DeepClone(&keep)->ToElement());
      }
      else if(tag == "TreeNodesModel")
      {
        // A file's model may be out of date (BT.CPP ignores it for nodes
        // its program registers): its ports join those the file uses.
        for(auto m = e->FirstChildElement(); m != nullptr; m = m->NextSiblingElement())
        {
          const char* id = m->Attribute("ID");
          const std::string kind = m->Name();
          if(id == nullptr || !isModelTag(kind) || factory.builders().count(id) != 0)
          {
            continue;
          }
          Shape& shape = shapes[id];
          if(kind == "Decorator")
          {
            shape.children = std::max(shape.children, 1);
          }
          else if(kind == "Control")
          {
            shape.children = std::max(shape.children, 2);
          }
          for(auto p = m->FirstChildElement(); p != nullptr; p = p->NextSiblingElement())
          {
            if(const char* name = p->Attribute("name"))
            {
              shape.ports.insert(name);
            }
          }
        }
      }
      else if(tag == "include" && e->Attribute("path") != nullptr)
      {
        queue.push_back((std::filesystem::path(dir) / e->Attribute("path")).string());
      }
    }
  }
  for(const auto* tree : trees)
  {
    collectUnknown(factory, tree, defined, shapes, called);
  }
  registerShapes(factory, shapes);
  for(const auto& id : called)
  {
    if(defined.count(id) == 0)
    {
      tinyxml2::XMLDocument doc;
      auto* root = doc.NewElement("root");
      root->SetAttribute("BTCPP_format", "4");
      auto* tree = doc.NewElement("BehaviorTree");
      tree->SetAttribute("ID", id.c_str());
      tree->InsertEndChild(doc.NewElement("AlwaysSuccess"));
      root->InsertEndChild(tree);
      doc.InsertEndChild(root);
      tinyxml2::XMLPrinter printer;
      doc.Print(&printer);
      factory.registerBehaviorTreeFromText(printer.CStr());
    }
  }
}

std::string oneLine(std::string msg)
{
  for(auto& c : msg)
  {
    if(c == '\n')
    {
      c = ' ';
    }
  }
  return msg;
}

// createMain creates the file's main tree: main_tree_to_execute, else
// (where BT.CPP's createTreeFromFile wants one and its tests name the
// tree in C++) the first tree, as botd does.
BT::Tree createMain(BT::BehaviorTreeFactory& factory, const char* file)
{
  tinyxml2::XMLDocument doc;
  if(doc.LoadFile(file) == tinyxml2::XML_SUCCESS && doc.RootElement() != nullptr &&
     doc.RootElement()->Attribute("main_tree_to_execute") == nullptr)
  {
    const auto* first = doc.RootElement()->FirstChildElement("BehaviorTree");
    const auto* second = first != nullptr ? first->NextSiblingElement("BehaviorTree") : nullptr;
    if(second != nullptr && first->Attribute("ID") != nullptr)
    {
      factory.registerBehaviorTreeFromFile(file);
      return factory.createTree(first->Attribute("ID"));
    }
  }
  return factory.createTreeFromFile(file);
}

// finish exits without destroying the tree: BT.CPP halts a running tree
// in its destructor, and a script that throws there (an _onHalted) would
// abort the process after the statuses are printed.
[[noreturn]] void finish(int code)
{
  std::fflush(stdout);
  std::_Exit(code);
}

}  // namespace

int main(int argc, char** argv)
{
  int ticks = 100;
  int period_ms = 50;
  bool autoStandIn = false;
  std::vector<std::string> libs;
  const char* file = nullptr;
  for(int i = 1; i < argc; i++)
  {
    if(std::strcmp(argv[i], "-auto") == 0)
    {
      autoStandIn = true;
    }
    else if(std::strcmp(argv[i], "-lib") == 0 && i + 1 < argc)
    {
      libs.emplace_back(argv[++i]);
    }
    else if(std::strcmp(argv[i], "-ticks") == 0 && i + 1 < argc)
    {
      ticks = std::atoi(argv[++i]);
    }
    else if(std::strcmp(argv[i], "-period-ms") == 0 && i + 1 < argc)
    {
      period_ms = std::atoi(argv[++i]);
    }
    else
    {
      file = argv[i];
    }
  }
  if(file == nullptr)
  {
    std::fprintf(stderr, "usage: btcpp-runner [-auto] [-lib FILE]... [-ticks N] [-period-ms P] FILE\n");
    return 64;
  }
  // BT.CPP prints its warnings on std::cout; the statuses alone go there.
  std::cout.rdbuf(std::cerr.rdbuf());
  BT::BehaviorTreeFactory factory;
  BT::Tree tree;
  try
  {
    if(!autoStandIn)
    {
      registerModels(factory, file);
    }
    else
    {
      std::vector<std::string> files{ file };
      files.insert(files.end(), libs.begin(), libs.end());
      registerUnknown(factory, files);
    }
    for(const auto& lib : libs)
    {
      factory.registerBehaviorTreeFromFile(lib);
    }
    tree = createMain(factory, file);
  }
  catch(const std::exception& e)
  {
    std::printf("LOAD %s\n", oneLine(e.what()).c_str());
    finish(2);
  }
  try
  {
    for(int k = 1; k <= ticks; k++)
    {
      const BT::NodeStatus st = tree.tickOnce();
      std::printf("%s\n", BT::toStr(st).c_str());
      std::fflush(stdout);
      if(st != BT::NodeStatus::RUNNING)
      {
        finish(0);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(period_ms));
    }
  }
  catch(const std::exception& e)
  {
    std::printf("THROW %s\n", oneLine(e.what()).c_str());
    finish(3);
  }
  finish(0);
}
