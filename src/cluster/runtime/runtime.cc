#include "cluster/runtime/runtime.h"

#include <spdlog/spdlog.h>

#include "cluster/runtime/default_scheduler.h"
#include "cluster/runtime/deployment_controller.h"
#include "cluster/runtime/endpoints_controller.h"
#include "cluster/runtime/event_recorder.h"
#include "cluster/runtime/informer_set.h"
#include "cluster/runtime/pod_gc.h"
#include "cluster/runtime/replicaset_controller.h"
#include "cluster/runtime/service_account_controller.h"
#include "cluster/runtime/service_proxy.h"
#include "cluster/runtime/simulated_consumers.h"
#include "cluster/runtime/workload_controllers.h"

namespace trimtab::cluster::runtime {

struct Runtime::Parts {
  Clock* clock = nullptr;
  std::vector<LocalNode> nodes;
  // One client per component of a real cluster, so that managedFields name the same managers
  // (the default field manager is the User-Agent up to its first "/"): the controllers write as
  // kube-controller-manager, the schedulers as kube-scheduler, the node agent, the kubelet and
  // the pod runners as kubelet.
  std::unique_ptr<kube::KubeClient> client;  // kube-controller-manager; informers, events
  std::unique_ptr<kube::KubeClient> scheduler_client;
  std::unique_ptr<kube::KubeClient> kubelet_client;
  std::unique_ptr<EventRecorder> events;
  std::unique_ptr<InformerSet> informers;
  std::unique_ptr<NodeAgent> node_agent;
  std::unique_ptr<Kubelet> kubelet;
  std::unique_ptr<SchedulingLoop> scheduling;
  std::unique_ptr<ReplicaSetController> replicasets;
  std::unique_ptr<WorkloadControllers> workloads;
  std::unique_ptr<DeploymentController> deployments;
  std::unique_ptr<HpaController> hpas;
  std::shared_ptr<SimulatedConsumers> consumers;
  std::unique_ptr<EndpointsController> endpoints;
  std::unique_ptr<ServiceAccountController> service_accounts;
  std::unique_ptr<PodGarbageCollector> pod_gc;
  std::unique_ptr<ServiceProxy> proxy;
  bool stopped = false;
};

namespace {

Status CheckRanges(const RuntimeOptions& o, Ipv4Range* pods, Ipv4Range* nodes) {
  auto pod_range = Ipv4Range::Parse(o.pod_cidr);
  if (!pod_range.ok()) return pod_range.status().WithContext("pod CIDR");
  auto node_range = Ipv4Range::Parse(o.node_ip_range);
  if (!node_range.ok()) return node_range.status().WithContext("node IP range");
  auto svc_range = Ipv4Range::Parse(o.service_cidr);
  if (!svc_range.ok()) return svc_range.status().WithContext("service CIDR");
  const Ipv4Range loopback(0x7f000000, 8);
  const Ipv4Range* ranges[] = {&*pod_range, &*node_range, &*svc_range};
  const char* names[] = {"pod CIDR", "node IP range", "service CIDR"};
  for (int i = 0; i < 3; ++i) {
    if (!loopback.Contains(ranges[i]->network())) {
      return InvalidArgumentError(std::string(names[i]) + " " + ranges[i]->String() +
                                  " must lie inside 127.0.0.0/8 (loopback)");
    }
    for (int j = i + 1; j < 3; ++j) {
      if (ranges[i]->Overlaps(*ranges[j])) {
        return InvalidArgumentError(std::string(names[i]) + " " + ranges[i]->String() +
                                    " overlaps the " + names[j] + " " + ranges[j]->String());
      }
    }
    if (ranges[i]->Contains(kLoopbackAddress)) {
      return InvalidArgumentError(std::string(names[i]) + " " + ranges[i]->String() +
                                  " must not contain 127.0.0.1");
    }
  }
  *pods = *pod_range;
  *nodes = *node_range;
  return Status::Ok();
}

// What the component of a real cluster sends (the gitVersion the local API server reports).
std::string UserAgent(const char* component) {
  return std::string(component) + "/v1.32.0 (linux/amd64) trimtab-local";
}

}  // namespace

StatusOr<std::unique_ptr<Runtime>> Runtime::Create(RuntimeOptions options) {
  std::unique_ptr<Runtime> runtime(new Runtime());
  runtime->parts_ = std::make_unique<Parts>();
  Parts& p = *runtime->parts_;
  p.clock = options.clock ? options.clock : RealClock::Default();
  TRIMTAB_RETURN_IF_ERROR(ValidateNodes(options.nodes));
  Ipv4Range pod_range, node_range;
  TRIMTAB_RETURN_IF_ERROR(CheckRanges(options, &pod_range, &node_range));
  TRIMTAB_ASSIGN_OR_RETURN(p.nodes, PlanNodes(options.nodes, pod_range, options.node_pod_prefix,
                                              node_range));
  kube::RestConfig config = options.rest_config;
  if (config.server.empty()) config.server = options.server_url;
  TRIMTAB_ASSIGN_OR_RETURN(
      p.client, kube::KubeClient::Create(config, {.user_agent = UserAgent("kube-controller-manager")}));
  TRIMTAB_ASSIGN_OR_RETURN(
      p.scheduler_client,
      kube::KubeClient::Create(config, {.user_agent = UserAgent("kube-scheduler")}));
  TRIMTAB_ASSIGN_OR_RETURN(p.kubelet_client,
                           kube::KubeClient::Create(config, {.user_agent = UserAgent("kubelet")}));
  p.events = std::make_unique<EventRecorder>(LocalClusterEventOptions(p.client.get(), p.clock));
  p.events->Start();

  RuntimeContext context{.client = p.kubelet_client.get(), .clock = p.clock,
                         .events = p.events.get(), .nodes = &p.nodes};
  std::vector<std::shared_ptr<PodRunner>> runners;
  for (const PodRunnerFactory& make : options.pod_runners) {
    TRIMTAB_ASSIGN_OR_RETURN(auto runner, make(context));
    if (!runner) return InvalidArgumentError("runtime: a pod runner factory returned nothing");
    runners.push_back(std::move(runner));
  }
  std::vector<std::shared_ptr<Scheduler>> schedulers;
  context.client = p.scheduler_client.get();
  for (const SchedulerFactory& make : options.schedulers) {
    TRIMTAB_ASSIGN_OR_RETURN(auto scheduler, make(context));
    if (!scheduler) return InvalidArgumentError("runtime: a scheduler factory returned nothing");
    schedulers.push_back(std::move(scheduler));
  }
  schedulers.push_back(std::make_shared<DefaultScheduler>());

  p.node_agent =
      std::make_unique<NodeAgent>(p.kubelet_client.get(), p.clock, p.nodes, options.node_agent);
  TRIMTAB_RETURN_IF_ERROR(p.node_agent->Register().WithContext("runtime"));

  p.informers = std::make_unique<InformerSet>(p.client.get());
  InformerSet* inf = p.informers.get();
  if (options.kubelet_enabled) {
    p.kubelet = std::make_unique<Kubelet>(p.kubelet_client.get(), inf, p.events.get(), p.clock, p.nodes,
                                          std::move(runners), options.kubelet);
  }
  p.scheduling = std::make_unique<SchedulingLoop>(p.scheduler_client.get(), inf, p.events.get(), p.clock,
                                                  std::move(schedulers), options.scheduling);
  p.replicasets = std::make_unique<ReplicaSetController>(p.client.get(), inf, p.events.get(), p.clock);
  p.deployments = std::make_unique<DeploymentController>(p.client.get(), inf, p.events.get(), p.clock);
  p.workloads = std::make_unique<WorkloadControllers>(p.client.get(), inf, p.events.get(), p.clock);
  p.hpas = std::make_unique<HpaController>(p.client.get(), inf, p.events.get(), p.clock, options.hpa);
  p.consumers = std::make_shared<SimulatedConsumers>(inf, p.events.get(), p.clock);
  p.endpoints = std::make_unique<EndpointsController>(p.client.get(), inf, p.clock);
  p.service_accounts = std::make_unique<ServiceAccountController>(p.client.get(), inf, p.clock);
  p.pod_gc = std::make_unique<PodGarbageCollector>(p.client.get(), inf, p.clock);
  if (options.service_proxy) p.proxy = std::make_unique<ServiceProxy>(inf);

  TRIMTAB_RETURN_IF_ERROR(p.informers->Start(options.sync_timeout));
  if (p.kubelet) p.kubelet->Start();
  TRIMTAB_RETURN_IF_ERROR(p.scheduling->Start());
  p.replicasets->Start();
  p.deployments->Start();
  p.workloads->Start();
  p.hpas->Start();
  p.endpoints->Start();
  p.service_accounts->Start();
  p.pod_gc->Start();
  if (p.proxy) TRIMTAB_RETURN_IF_ERROR(p.proxy->Start());
  p.node_agent->Start();
  spdlog::info("runtime: {} nodes, pods from {}, talking to {}", p.nodes.size(),
               pod_range.String(), options.server_url);
  return runtime;
}

Runtime::~Runtime() { Stop(); }

void Runtime::Stop() {
  if (!parts_ || parts_->stopped) return;
  Parts& p = *parts_;
  p.stopped = true;
  // Writers first, so nothing acts on a half-stopped cluster; then the readers.
  if (p.scheduling) p.scheduling->Stop();
  if (p.hpas) p.hpas->Stop();
  if (p.deployments) p.deployments->Stop();
  if (p.workloads) p.workloads->Stop();
  if (p.replicasets) p.replicasets->Stop();
  if (p.endpoints) p.endpoints->Stop();
  if (p.service_accounts) p.service_accounts->Stop();
  if (p.pod_gc) p.pod_gc->Stop();
  if (p.proxy) p.proxy->Stop();
  if (p.kubelet) p.kubelet->Stop();
  if (p.node_agent) p.node_agent->Stop();
  if (p.informers) p.informers->Stop();
  if (p.events) p.events->Stop();
}

std::optional<std::string> Runtime::PodLogs(const Json& pod, const std::string& container,
                                            bool previous) const {
  if (!parts_ || !parts_->kubelet) return previous ? std::nullopt : std::optional<std::string>("");
  return parts_->kubelet->PodLogs(pod, container, previous);
}

const std::vector<LocalNode>& Runtime::nodes() const { return parts_->nodes; }
const kube::KubeClient* Runtime::client() const { return parts_->client.get(); }
std::shared_ptr<metrics::StreamingMetricsSource> Runtime::simulated_consumers() const {
  return parts_->consumers;
}

}  // namespace trimtab::cluster::runtime
