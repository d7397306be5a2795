// btcpp-runner loads a BehaviorTree.CPP XML file with BehaviorTree.CPP
// itself and ticks it, for botd's differential tests (see README.md).
//
// Every node type the file's <TreeNodesModel> declares and BehaviorTree.CPP
// does not know is registered as botd's '*=Succeed' stand-in: an action or
// condition returns SUCCESS, a decorator passes its child's status through,
// a control node returns SUCCESS without ticking its children.
//
// Usage: btcpp-runner [-ticks N] [-period-ms P] FILE
// Output, one line per tick: the root's status (RUNNING, SUCCESS, FAILURE,
// SKIPPED). On a load error: "LOAD <message>" and exit status 2; on an
// exception while ticking: "THROW <message>" and exit status 3.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <thread>

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

}  // namespace

int main(int argc, char** argv)
{
  int ticks = 100;
  int period_ms = 50;
  const char* file = nullptr;
  for(int i = 1; i < argc; i++)
  {
    if(std::strcmp(argv[i], "-ticks") == 0 && i + 1 < argc)
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
    std::fprintf(stderr, "usage: btcpp-runner [-ticks N] [-period-ms P] FILE\n");
    return 64;
  }
  BT::BehaviorTreeFactory factory;
  BT::Tree tree;
  try
  {
    registerModels(factory, file);
    tree = factory.createTreeFromFile(file);
  }
  catch(const std::exception& e)
  {
    std::string msg = e.what();
    for(auto& c : msg)
    {
      if(c == '\n')
      {
        c = ' ';
      }
    }
    std::printf("LOAD %s\n", msg.c_str());
    return 2;
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
        return 0;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(period_ms));
    }
  }
  catch(const std::exception& e)
  {
    std::string msg = e.what();
    for(auto& c : msg)
    {
      if(c == '\n')
      {
        c = ' ';
      }
    }
    std::printf("THROW %s\n", msg.c_str());
    return 3;
  }
  return 0;
}
