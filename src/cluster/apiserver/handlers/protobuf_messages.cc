#include "cluster/apiserver/handlers/protobuf_messages.h"

#include <charconv>
#include <map>
#include <memory>
#include <utility>

namespace trimtab::cluster {
namespace {

struct MessageEntry {
  const char* name;
  const char* spec;
};

// Field numbers and JSON names of k8s.io/api v1.32 (see the header for the notation).
constexpr MessageEntry kMessages[] = {
    {"core.v1.Namespace",
     "metadata=1<meta.v1.ObjectMeta> spec=2<core.v1.NamespaceSpec> "
     "status=3<core.v1.NamespaceStatus>"},
    // Only what a client sets: selfLink, generation, the timestamps and managedFields are the
    // server's (ignored on a JSON write as well).
    {"meta.v1.ObjectMeta",
     "name=1s generateName=2s namespace=3s uid=5s resourceVersion=6s labels=11s% "
     "annotations=12s% ownerReferences=13<meta.v1.OwnerReference>* finalizers=14s*"},
    {"meta.v1.OwnerReference",
     "kind=1s? name=3s? uid=4s? apiVersion=5s? controller=6o? blockOwnerDeletion=7o?"},
    {"meta.v1.ManagedFieldsEntry",
     "manager=1s operation=2s apiVersion=3s time=4t fieldsType=6s fieldsV1=7f subresource=8s"},
    {"core.v1.NamespaceSpec", "finalizers=1s*"},
    {"core.v1.NamespaceStatus", "phase=1s conditions=2<core.v1.NamespaceCondition>*"},
    {"core.v1.NamespaceCondition",
     "type=1s? status=2s? lastTransitionTime=4t reason=5s message=6s"},
    {"core.v1.ConfigMap", "metadata=1<meta.v1.ObjectMeta> data=2s% binaryData=3b% immutable=4o?"},
    {"core.v1.Secret",
     "metadata=1<meta.v1.ObjectMeta> data=2b% type=3s stringData=4s% immutable=5o?"},
    {"core.v1.Pod",
     "metadata=1<meta.v1.ObjectMeta> spec=2<core.v1.PodSpec> status=3<core.v1.PodStatus>"},
    {"core.v1.PodSpec",
     "volumes=1<core.v1.Volume>* containers=2<core.v1.Container>* restartPolicy=3s "
     "terminationGracePeriodSeconds=4l? activeDeadlineSeconds=5l? dnsPolicy=6s nodeSelector=7s% "
     "serviceAccountName=8s serviceAccount=9s nodeName=10s hostNetwork=11o hostPID=12o "
     "hostIPC=13o securityContext=14<core.v1.PodSecurityContext> "
     "imagePullSecrets=15<core.v1.LocalObjectReference>* hostname=16s subdomain=17s "
     "affinity=18<core.v1.Affinity> schedulerName=19s initContainers=20<core.v1.Container>* "
     "automountServiceAccountToken=21o? tolerations=22<core.v1.Toleration>* "
     "hostAliases=23<core.v1.HostAlias>* priorityClassName=24s priority=25i? "
     "dnsConfig=26<core.v1.PodDNSConfig> shareProcessNamespace=27o? "
     "readinessGates=28<core.v1.PodReadinessGate>* runtimeClassName=29s? "
     "enableServiceLinks=30o? preemptionPolicy=31s? overhead=32q% "
     "topologySpreadConstraints=33<core.v1.TopologySpreadConstraint>* "
     "ephemeralContainers=34<core.v1.EphemeralContainer>* setHostnameAsFQDN=35o? "
     "os=36<core.v1.PodOS> hostUsers=37o? schedulingGates=38<core.v1.PodSchedulingGate>* "
     "resourceClaims=39<core.v1.PodResourceClaim>* resources=40<core.v1.ResourceRequirements>"},
    {"core.v1.Volume", "name=1s? volumeSource=2<core.v1.VolumeSource>~"},
    {"core.v1.VolumeSource",
     "hostPath=1<core.v1.HostPathVolumeSource> emptyDir=2<core.v1.EmptyDirVolumeSource> "
     "gcePersistentDisk=3<core.v1.GCEPersistentDiskVolumeSource> "
     "awsElasticBlockStore=4<core.v1.AWSElasticBlockStoreVolumeSource> "
     "gitRepo=5<core.v1.GitRepoVolumeSource> secret=6<core.v1.SecretVolumeSource> "
     "nfs=7<core.v1.NFSVolumeSource> iscsi=8<core.v1.ISCSIVolumeSource> "
     "glusterfs=9<core.v1.GlusterfsVolumeSource> "
     "persistentVolumeClaim=10<core.v1.PersistentVolumeClaimVolumeSource> "
     "rbd=11<core.v1.RBDVolumeSource> flexVolume=12<core.v1.FlexVolumeSource> "
     "cinder=13<core.v1.CinderVolumeSource> cephfs=14<core.v1.CephFSVolumeSource> "
     "flocker=15<core.v1.FlockerVolumeSource> downwardAPI=16<core.v1.DownwardAPIVolumeSource> "
     "fc=17<core.v1.FCVolumeSource> azureFile=18<core.v1.AzureFileVolumeSource> "
     "configMap=19<core.v1.ConfigMapVolumeSource> "
     "vsphereVolume=20<core.v1.VsphereVirtualDiskVolumeSource> "
     "quobyte=21<core.v1.QuobyteVolumeSource> azureDisk=22<core.v1.AzureDiskVolumeSource> "
     "photonPersistentDisk=23<core.v1.PhotonPersistentDiskVolumeSource> "
     "portworxVolume=24<core.v1.PortworxVolumeSource> scaleIO=25<core.v1.ScaleIOVolumeSource> "
     "projected=26<core.v1.ProjectedVolumeSource> storageos=27<core.v1.StorageOSVolumeSource> "
     "csi=28<core.v1.CSIVolumeSource> ephemeral=29<core.v1.EphemeralVolumeSource> "
     "image=30<core.v1.ImageVolumeSource>"},
    {"core.v1.HostPathVolumeSource", "path=1s? type=2s?"},
    {"core.v1.EmptyDirVolumeSource", "medium=1s sizeLimit=2q"},
    {"core.v1.GCEPersistentDiskVolumeSource", "pdName=1s? fsType=2s partition=3i readOnly=4o"},
    {"core.v1.AWSElasticBlockStoreVolumeSource", "volumeID=1s? fsType=2s partition=3i readOnly=4o"},
    {"core.v1.GitRepoVolumeSource", "repository=1s? revision=2s directory=3s"},
    {"core.v1.SecretVolumeSource",
     "secretName=1s items=2<core.v1.KeyToPath>* defaultMode=3i? optional=4o?"},
    {"core.v1.KeyToPath", "key=1s? path=2s? mode=3i?"},
    {"core.v1.NFSVolumeSource", "server=1s? path=2s? readOnly=3o"},
    {"core.v1.ISCSIVolumeSource",
     "targetPortal=1s? iqn=2s? lun=3i? iscsiInterface=4s fsType=5s readOnly=6o portals=7s* "
     "chapAuthDiscovery=8o secretRef=10<core.v1.LocalObjectReference> chapAuthSession=11o "
     "initiatorName=12s?"},
    {"core.v1.LocalObjectReference", "name=1s"},
    {"core.v1.GlusterfsVolumeSource", "endpoints=1s? path=2s? readOnly=3o"},
    {"core.v1.PersistentVolumeClaimVolumeSource", "claimName=1s? readOnly=2o"},
    {"core.v1.RBDVolumeSource",
     "monitors=1s* image=2s? fsType=3s pool=4s user=5s keyring=6s "
     "secretRef=7<core.v1.LocalObjectReference> readOnly=8o"},
    {"core.v1.FlexVolumeSource",
     "driver=1s? fsType=2s secretRef=3<core.v1.LocalObjectReference> readOnly=4o options=5s%"},
    {"core.v1.CinderVolumeSource",
     "volumeID=1s? fsType=2s readOnly=3o secretRef=4<core.v1.LocalObjectReference>"},
    {"core.v1.CephFSVolumeSource",
     "monitors=1s* path=2s user=3s secretFile=4s secretRef=5<core.v1.LocalObjectReference> "
     "readOnly=6o"},
    {"core.v1.FlockerVolumeSource", "datasetName=1s datasetUUID=2s"},
    {"core.v1.DownwardAPIVolumeSource", "items=1<core.v1.DownwardAPIVolumeFile>* defaultMode=2i?"},
    {"core.v1.DownwardAPIVolumeFile",
     "path=1s? fieldRef=2<core.v1.ObjectFieldSelector> "
     "resourceFieldRef=3<core.v1.ResourceFieldSelector> mode=4i?"},
    {"core.v1.ObjectFieldSelector", "apiVersion=1s fieldPath=2s?"},
    {"core.v1.ResourceFieldSelector", "containerName=1s resource=2s? divisor=3q"},
    {"core.v1.FCVolumeSource", "targetWWNs=1s* lun=2i? fsType=3s readOnly=4o wwids=5s*"},
    {"core.v1.AzureFileVolumeSource", "secretName=1s? shareName=2s? readOnly=3o"},
    {"core.v1.ConfigMapVolumeSource",
     "localObjectReference=1<core.v1.LocalObjectReference>~ items=2<core.v1.KeyToPath>* "
     "defaultMode=3i? optional=4o?"},
    {"core.v1.VsphereVirtualDiskVolumeSource",
     "volumePath=1s? fsType=2s storagePolicyName=3s storagePolicyID=4s"},
    {"core.v1.QuobyteVolumeSource",
     "registry=1s? volume=2s? readOnly=3o user=4s group=5s tenant=6s"},
    {"core.v1.AzureDiskVolumeSource",
     "diskName=1s? diskURI=2s? cachingMode=3s? fsType=4s? readOnly=5o? kind=6s?"},
    {"core.v1.PhotonPersistentDiskVolumeSource", "pdID=1s? fsType=2s"},
    {"core.v1.ProjectedVolumeSource", "sources=1<core.v1.VolumeProjection>* defaultMode=2i?"},
    {"core.v1.VolumeProjection",
     "secret=1<core.v1.SecretProjection> downwardAPI=2<core.v1.DownwardAPIProjection> "
     "configMap=3<core.v1.ConfigMapProjection> "
     "serviceAccountToken=4<core.v1.ServiceAccountTokenProjection> "
     "clusterTrustBundle=5<core.v1.ClusterTrustBundleProjection>"},
    {"core.v1.SecretProjection",
     "localObjectReference=1<core.v1.LocalObjectReference>~ items=2<core.v1.KeyToPath>* "
     "optional=4o?"},
    {"core.v1.DownwardAPIProjection", "items=1<core.v1.DownwardAPIVolumeFile>*"},
    {"core.v1.ConfigMapProjection",
     "localObjectReference=1<core.v1.LocalObjectReference>~ items=2<core.v1.KeyToPath>* "
     "optional=4o?"},
    {"core.v1.ServiceAccountTokenProjection", "audience=1s expirationSeconds=2l? path=3s?"},
    {"core.v1.ClusterTrustBundleProjection",
     "name=1s? signerName=2s? labelSelector=3<meta.v1.LabelSelector> path=4s? optional=5o?"},
    {"meta.v1.LabelSelector",
     "matchLabels=1s% matchExpressions=2<meta.v1.LabelSelectorRequirement>*"},
    {"meta.v1.LabelSelectorRequirement", "key=1s? operator=2s? values=3s*"},
    {"core.v1.PortworxVolumeSource", "volumeID=1s? fsType=2s readOnly=3o"},
    {"core.v1.ScaleIOVolumeSource",
     "gateway=1s? system=2s? secretRef=3<core.v1.LocalObjectReference> sslEnabled=4o "
     "protectionDomain=5s storagePool=6s storageMode=7s volumeName=8s fsType=9s readOnly=10o"},
    {"core.v1.StorageOSVolumeSource",
     "volumeName=1s volumeNamespace=2s fsType=3s readOnly=4o "
     "secretRef=5<core.v1.LocalObjectReference>"},
    {"core.v1.CSIVolumeSource",
     "driver=1s? readOnly=2o? fsType=3s? volumeAttributes=4s% "
     "nodePublishSecretRef=5<core.v1.LocalObjectReference>"},
    {"core.v1.EphemeralVolumeSource",
     "volumeClaimTemplate=1<core.v1.PersistentVolumeClaimTemplate>"},
    {"core.v1.PersistentVolumeClaimTemplate",
     "metadata=1<meta.v1.ObjectMeta> spec=2<core.v1.PersistentVolumeClaimSpec>"},
    {"core.v1.PersistentVolumeClaimSpec",
     "accessModes=1s* resources=2<core.v1.VolumeResourceRequirements> volumeName=3s "
     "selector=4<meta.v1.LabelSelector> storageClassName=5s? volumeMode=6s? "
     "dataSource=7<core.v1.TypedLocalObjectReference> "
     "dataSourceRef=8<core.v1.TypedObjectReference> volumeAttributesClassName=9s?"},
    {"core.v1.VolumeResourceRequirements", "limits=1q% requests=2q%"},
    {"core.v1.TypedLocalObjectReference", "apiGroup=1s? kind=2s? name=3s?"},
    {"core.v1.TypedObjectReference", "apiGroup=1s? kind=2s? name=3s? namespace=4s?"},
    {"core.v1.ImageVolumeSource", "reference=1s pullPolicy=2s"},
    {"core.v1.Container",
     "name=1s? image=2s command=3s* args=4s* workingDir=5s ports=6<core.v1.ContainerPort>* "
     "env=7<core.v1.EnvVar>* resources=8<core.v1.ResourceRequirements> "
     "volumeMounts=9<core.v1.VolumeMount>* livenessProbe=10<core.v1.Probe> "
     "readinessProbe=11<core.v1.Probe> lifecycle=12<core.v1.Lifecycle> "
     "terminationMessagePath=13s imagePullPolicy=14s "
     "securityContext=15<core.v1.SecurityContext> stdin=16o stdinOnce=17o tty=18o "
     "envFrom=19<core.v1.EnvFromSource>* terminationMessagePolicy=20s "
     "volumeDevices=21<core.v1.VolumeDevice>* startupProbe=22<core.v1.Probe> "
     "resizePolicy=23<core.v1.ContainerResizePolicy>* restartPolicy=24s?"},
    {"core.v1.ContainerPort", "name=1s hostPort=2i containerPort=3i? protocol=4s hostIP=5s"},
    {"core.v1.EnvFromSource",
     "prefix=1s configMapRef=2<core.v1.ConfigMapEnvSource> secretRef=3<core.v1.SecretEnvSource>"},
    {"core.v1.ConfigMapEnvSource",
     "localObjectReference=1<core.v1.LocalObjectReference>~ optional=2o?"},
    {"core.v1.SecretEnvSource",
     "localObjectReference=1<core.v1.LocalObjectReference>~ optional=2o?"},
    {"core.v1.EnvVar", "name=1s? value=2s valueFrom=3<core.v1.EnvVarSource>"},
    {"core.v1.EnvVarSource",
     "fieldRef=1<core.v1.ObjectFieldSelector> resourceFieldRef=2<core.v1.ResourceFieldSelector> "
     "configMapKeyRef=3<core.v1.ConfigMapKeySelector> secretKeyRef=4<core.v1.SecretKeySelector>"},
    {"core.v1.ConfigMapKeySelector",
     "localObjectReference=1<core.v1.LocalObjectReference>~ key=2s? optional=3o?"},
    {"core.v1.SecretKeySelector",
     "localObjectReference=1<core.v1.LocalObjectReference>~ key=2s? optional=3o?"},
    {"core.v1.ResourceRequirements", "limits=1q% requests=2q% claims=3<core.v1.ResourceClaim>*"},
    {"core.v1.ResourceClaim", "name=1s? request=2s"},
    {"core.v1.ContainerResizePolicy", "resourceName=1s? restartPolicy=2s?"},
    {"core.v1.VolumeMount",
     "name=1s? readOnly=2o mountPath=3s? subPath=4s mountPropagation=5s? subPathExpr=6s "
     "recursiveReadOnly=7s?"},
    {"core.v1.VolumeDevice", "name=1s? devicePath=2s?"},
    {"core.v1.Probe",
     "handler=1<core.v1.ProbeHandler>~ initialDelaySeconds=2i timeoutSeconds=3i "
     "periodSeconds=4i successThreshold=5i failureThreshold=6i "
     "terminationGracePeriodSeconds=7l?"},
    {"core.v1.ProbeHandler",
     "exec=1<core.v1.ExecAction> httpGet=2<core.v1.HTTPGetAction> "
     "tcpSocket=3<core.v1.TCPSocketAction> grpc=4<core.v1.GRPCAction>"},
    {"core.v1.ExecAction", "command=1s*"},
    {"core.v1.HTTPGetAction",
     "path=1s port=2x host=3s scheme=4s httpHeaders=5<core.v1.HTTPHeader>*"},
    {"core.v1.HTTPHeader", "name=1s? value=2s?"},
    {"core.v1.TCPSocketAction", "port=1x host=2s"},
    {"core.v1.GRPCAction", "port=1i? service=2s?"},
    {"core.v1.Lifecycle",
     "postStart=1<core.v1.LifecycleHandler> preStop=2<core.v1.LifecycleHandler>"},
    {"core.v1.LifecycleHandler",
     "exec=1<core.v1.ExecAction> httpGet=2<core.v1.HTTPGetAction> "
     "tcpSocket=3<core.v1.TCPSocketAction> sleep=4<core.v1.SleepAction>"},
    {"core.v1.SleepAction", "seconds=1l?"},
    {"core.v1.SecurityContext",
     "capabilities=1<core.v1.Capabilities> privileged=2o? "
     "seLinuxOptions=3<core.v1.SELinuxOptions> runAsUser=4l? runAsNonRoot=5o? "
     "readOnlyRootFilesystem=6o? allowPrivilegeEscalation=7o? runAsGroup=8l? procMount=9s? "
     "windowsOptions=10<core.v1.WindowsSecurityContextOptions> "
     "seccompProfile=11<core.v1.SeccompProfile> appArmorProfile=12<core.v1.AppArmorProfile>"},
    {"core.v1.Capabilities", "add=1s* drop=2s*"},
    {"core.v1.SELinuxOptions", "user=1s role=2s type=3s level=4s"},
    {"core.v1.WindowsSecurityContextOptions",
     "gmsaCredentialSpecName=1s? gmsaCredentialSpec=2s? runAsUserName=3s? hostProcess=4o?"},
    {"core.v1.SeccompProfile", "type=1s? localhostProfile=2s?"},
    {"core.v1.AppArmorProfile", "type=1s? localhostProfile=2s?"},
    {"core.v1.EphemeralContainer",
     "ephemeralContainerCommon=1<core.v1.EphemeralContainerCommon>~ targetContainerName=2s"},
    {"core.v1.EphemeralContainerCommon",
     "name=1s? image=2s command=3s* args=4s* workingDir=5s ports=6<core.v1.ContainerPort>* "
     "env=7<core.v1.EnvVar>* resources=8<core.v1.ResourceRequirements> "
     "volumeMounts=9<core.v1.VolumeMount>* livenessProbe=10<core.v1.Probe> "
     "readinessProbe=11<core.v1.Probe> lifecycle=12<core.v1.Lifecycle> "
     "terminationMessagePath=13s imagePullPolicy=14s "
     "securityContext=15<core.v1.SecurityContext> stdin=16o stdinOnce=17o tty=18o "
     "envFrom=19<core.v1.EnvFromSource>* terminationMessagePolicy=20s "
     "volumeDevices=21<core.v1.VolumeDevice>* startupProbe=22<core.v1.Probe> "
     "resizePolicy=23<core.v1.ContainerResizePolicy>* restartPolicy=24s?"},
    {"core.v1.PodSecurityContext",
     "seLinuxOptions=1<core.v1.SELinuxOptions> runAsUser=2l? runAsNonRoot=3o? "
     "supplementalGroups=4l* fsGroup=5l? runAsGroup=6l? sysctls=7<core.v1.Sysctl>* "
     "windowsOptions=8<core.v1.WindowsSecurityContextOptions> fsGroupChangePolicy=9s? "
     "seccompProfile=10<core.v1.SeccompProfile> appArmorProfile=11<core.v1.AppArmorProfile> "
     "supplementalGroupsPolicy=12s? seLinuxChangePolicy=13s?"},
    {"core.v1.Sysctl", "name=1s? value=2s?"},
    {"core.v1.Affinity",
     "nodeAffinity=1<core.v1.NodeAffinity> podAffinity=2<core.v1.PodAffinity> "
     "podAntiAffinity=3<core.v1.PodAntiAffinity>"},
    {"core.v1.NodeAffinity",
     "requiredDuringSchedulingIgnoredDuringExecution=1<core.v1.NodeSelector> "
     "preferredDuringSchedulingIgnoredDuringExecution=2<core.v1.PreferredSchedulingTerm>*"},
    {"core.v1.NodeSelector", "nodeSelectorTerms=1<core.v1.NodeSelectorTerm>*"},
    {"core.v1.NodeSelectorTerm",
     "matchExpressions=1<core.v1.NodeSelectorRequirement>* "
     "matchFields=2<core.v1.NodeSelectorRequirement>*"},
    {"core.v1.NodeSelectorRequirement", "key=1s? operator=2s? values=3s*"},
    {"core.v1.PreferredSchedulingTerm", "weight=1i? preference=2<core.v1.NodeSelectorTerm>"},
    {"core.v1.PodAffinity",
     "requiredDuringSchedulingIgnoredDuringExecution=1<core.v1.PodAffinityTerm>* "
     "preferredDuringSchedulingIgnoredDuringExecution=2<core.v1.WeightedPodAffinityTerm>*"},
    {"core.v1.PodAffinityTerm",
     "labelSelector=1<meta.v1.LabelSelector> namespaces=2s* topologyKey=3s? "
     "namespaceSelector=4<meta.v1.LabelSelector> matchLabelKeys=5s* mismatchLabelKeys=6s*"},
    {"core.v1.WeightedPodAffinityTerm", "weight=1i? podAffinityTerm=2<core.v1.PodAffinityTerm>"},
    {"core.v1.PodAntiAffinity",
     "requiredDuringSchedulingIgnoredDuringExecution=1<core.v1.PodAffinityTerm>* "
     "preferredDuringSchedulingIgnoredDuringExecution=2<core.v1.WeightedPodAffinityTerm>*"},
    {"core.v1.Toleration", "key=1s operator=2s value=3s effect=4s tolerationSeconds=5l?"},
    {"core.v1.HostAlias", "ip=1s? hostnames=2s*"},
    {"core.v1.PodDNSConfig", "nameservers=1s* searches=2s* options=3<core.v1.PodDNSConfigOption>*"},
    {"core.v1.PodDNSConfigOption", "name=1s value=2s?"},
    {"core.v1.PodReadinessGate", "conditionType=1s?"},
    {"core.v1.TopologySpreadConstraint",
     "maxSkew=1i? topologyKey=2s? whenUnsatisfiable=3s? labelSelector=4<meta.v1.LabelSelector> "
     "minDomains=5i? nodeAffinityPolicy=6s? nodeTaintsPolicy=7s? matchLabelKeys=8s*"},
    {"core.v1.PodOS", "name=1s?"},
    {"core.v1.PodSchedulingGate", "name=1s?"},
    {"core.v1.PodResourceClaim", "name=1s? resourceClaimName=3s? resourceClaimTemplateName=4s?"},
    {"core.v1.PodStatus",
     "phase=1s conditions=2<core.v1.PodCondition>* message=3s reason=4s hostIP=5s podIP=6s "
     "startTime=7t containerStatuses=8<core.v1.ContainerStatus>* qosClass=9s "
     "initContainerStatuses=10<core.v1.ContainerStatus>* nominatedNodeName=11s "
     "podIPs=12<core.v1.PodIP>* ephemeralContainerStatuses=13<core.v1.ContainerStatus>* "
     "resize=14s resourceClaimStatuses=15<core.v1.PodResourceClaimStatus>* "
     "hostIPs=16<core.v1.HostIP>*"},
    {"core.v1.PodCondition",
     "type=1s? status=2s? lastProbeTime=3t lastTransitionTime=4t reason=5s message=6s"},
    {"core.v1.HostIP", "ip=1s?"},
    {"core.v1.PodIP", "ip=1s?"},
    {"core.v1.ContainerStatus",
     "name=1s? state=2<core.v1.ContainerState> lastState=3<core.v1.ContainerState> ready=4o? "
     "restartCount=5i? image=6s? imageID=7s? containerID=8s started=9o? allocatedResources=10q% "
     "resources=11<core.v1.ResourceRequirements> volumeMounts=12<core.v1.VolumeMountStatus>* "
     "user=13<core.v1.ContainerUser> allocatedResourcesStatus=14<core.v1.ResourceStatus>*"},
    {"core.v1.ContainerState",
     "waiting=1<core.v1.ContainerStateWaiting> running=2<core.v1.ContainerStateRunning> "
     "terminated=3<core.v1.ContainerStateTerminated>"},
    {"core.v1.ContainerStateWaiting", "reason=1s message=2s"},
    {"core.v1.ContainerStateRunning", "startedAt=1t"},
    {"core.v1.ContainerStateTerminated",
     "exitCode=1i? signal=2i reason=3s message=4s startedAt=5t finishedAt=6t containerID=7s"},
    {"core.v1.VolumeMountStatus", "name=1s? mountPath=2s? readOnly=3o recursiveReadOnly=4s?"},
    {"core.v1.ContainerUser", "linux=1<core.v1.LinuxContainerUser>"},
    {"core.v1.LinuxContainerUser", "uid=1l? gid=2l? supplementalGroups=3l*"},
    {"core.v1.ResourceStatus", "name=1s? resources=2<core.v1.ResourceHealth>*"},
    {"core.v1.ResourceHealth", "resourceID=1s? health=2s"},
    {"core.v1.PodResourceClaimStatus", "name=1s? resourceClaimName=2s?"},
    {"core.v1.Service",
     "metadata=1<meta.v1.ObjectMeta> spec=2<core.v1.ServiceSpec> "
     "status=3<core.v1.ServiceStatus>"},
    {"core.v1.ServiceSpec",
     "ports=1<core.v1.ServicePort>* selector=2s% clusterIP=3s type=4s externalIPs=5s* "
     "sessionAffinity=7s loadBalancerIP=8s loadBalancerSourceRanges=9s* externalName=10s "
     "externalTrafficPolicy=11s healthCheckNodePort=12i publishNotReadyAddresses=13o "
     "sessionAffinityConfig=14<core.v1.SessionAffinityConfig> ipFamilyPolicy=17s? "
     "clusterIPs=18s* ipFamilies=19s* allocateLoadBalancerNodePorts=20o? loadBalancerClass=21s? "
     "internalTrafficPolicy=22s? trafficDistribution=23s?"},
    {"core.v1.ServicePort",
     "name=1s protocol=2s port=3i? targetPort=4x nodePort=5i appProtocol=6s?"},
    {"core.v1.SessionAffinityConfig", "clientIP=1<core.v1.ClientIPConfig>"},
    {"core.v1.ClientIPConfig", "timeoutSeconds=1i?"},
    {"core.v1.ServiceStatus",
     "loadBalancer=1<core.v1.LoadBalancerStatus> conditions=2<meta.v1.Condition>*"},
    {"core.v1.LoadBalancerStatus", "ingress=1<core.v1.LoadBalancerIngress>*"},
    {"core.v1.LoadBalancerIngress", "ip=1s hostname=2s ipMode=3s? ports=4<core.v1.PortStatus>*"},
    {"core.v1.PortStatus", "port=1i? protocol=2s? error=3s?"},
    {"meta.v1.Condition",
     "type=1s? status=2s? observedGeneration=3l lastTransitionTime=4t reason=5s? message=6s?"},
    {"core.v1.ServiceAccount",
     "metadata=1<meta.v1.ObjectMeta> secrets=2<core.v1.ObjectReference>* "
     "imagePullSecrets=3<core.v1.LocalObjectReference>* automountServiceAccountToken=4o?"},
    {"core.v1.ObjectReference",
     "kind=1s namespace=2s name=3s uid=4s apiVersion=5s resourceVersion=6s fieldPath=7s"},
    {"core.v1.Endpoints", "metadata=1<meta.v1.ObjectMeta> subsets=2<core.v1.EndpointSubset>*"},
    {"core.v1.EndpointSubset",
     "addresses=1<core.v1.EndpointAddress>* notReadyAddresses=2<core.v1.EndpointAddress>* "
     "ports=3<core.v1.EndpointPort>*"},
    {"core.v1.EndpointAddress",
     "ip=1s? targetRef=2<core.v1.ObjectReference> hostname=3s nodeName=4s?"},
    {"core.v1.EndpointPort", "name=1s port=2i? protocol=3s appProtocol=4s?"},
    {"core.v1.Node",
     "metadata=1<meta.v1.ObjectMeta> spec=2<core.v1.NodeSpec> status=3<core.v1.NodeStatus>"},
    {"core.v1.NodeSpec",
     "podCIDR=1s externalID=2s providerID=3s unschedulable=4o taints=5<core.v1.Taint>* "
     "configSource=6<core.v1.NodeConfigSource> podCIDRs=7s*"},
    {"core.v1.Taint", "key=1s? value=2s effect=3s? timeAdded=4t"},
    {"core.v1.NodeConfigSource", "configMap=2<core.v1.ConfigMapNodeConfigSource>"},
    {"core.v1.ConfigMapNodeConfigSource",
     "namespace=1s? name=2s? uid=3s resourceVersion=4s kubeletConfigKey=5s?"},
    {"core.v1.NodeStatus",
     "capacity=1q% allocatable=2q% phase=3s conditions=4<core.v1.NodeCondition>* "
     "addresses=5<core.v1.NodeAddress>* daemonEndpoints=6<core.v1.NodeDaemonEndpoints> "
     "nodeInfo=7<core.v1.NodeSystemInfo> images=8<core.v1.ContainerImage>* volumesInUse=9s* "
     "volumesAttached=10<core.v1.AttachedVolume>* config=11<core.v1.NodeConfigStatus> "
     "runtimeHandlers=12<core.v1.NodeRuntimeHandler>* features=13<core.v1.NodeFeatures>"},
    {"core.v1.NodeCondition",
     "type=1s? status=2s? lastHeartbeatTime=3t lastTransitionTime=4t reason=5s message=6s"},
    {"core.v1.NodeAddress", "type=1s? address=2s?"},
    {"core.v1.NodeDaemonEndpoints", "kubeletEndpoint=1<core.v1.DaemonEndpoint>"},
    {"core.v1.DaemonEndpoint", "Port=1i?"},
    {"core.v1.NodeSystemInfo",
     "machineID=1s? systemUUID=2s? bootID=3s? kernelVersion=4s? osImage=5s? "
     "containerRuntimeVersion=6s? kubeletVersion=7s? kubeProxyVersion=8s? operatingSystem=9s? "
     "architecture=10s?"},
    {"core.v1.ContainerImage", "names=1s* sizeBytes=2l"},
    {"core.v1.AttachedVolume", "name=1s? devicePath=2s?"},
    {"core.v1.NodeConfigStatus",
     "assigned=1<core.v1.NodeConfigSource> active=2<core.v1.NodeConfigSource> "
     "lastKnownGood=3<core.v1.NodeConfigSource> error=4s"},
    {"core.v1.NodeRuntimeHandler", "name=1s? features=2<core.v1.NodeRuntimeHandlerFeatures>"},
    {"core.v1.NodeRuntimeHandlerFeatures", "recursiveReadOnlyMounts=1o? userNamespaces=2o?"},
    {"core.v1.NodeFeatures", "supplementalGroupsPolicy=1o?"},
    {"core.v1.Event",
     "metadata=1<meta.v1.ObjectMeta> involvedObject=2<core.v1.ObjectReference> reason=3s "
     "message=4s source=5<core.v1.EventSource> firstTimestamp=6t lastTimestamp=7t count=8i "
     "type=9s eventTime=10T series=11<core.v1.EventSeries> action=12s "
     "related=13<core.v1.ObjectReference> reportingComponent=14s? reportingInstance=15s?"},
    {"core.v1.EventSource", "component=1s host=2s"},
    {"core.v1.EventSeries", "count=1i lastObservedTime=2T"},
    {"core.v1.PersistentVolumeClaim",
     "metadata=1<meta.v1.ObjectMeta> spec=2<core.v1.PersistentVolumeClaimSpec> "
     "status=3<core.v1.PersistentVolumeClaimStatus>"},
    {"core.v1.PersistentVolumeClaimStatus",
     "phase=1s accessModes=2s* capacity=3q% "
     "conditions=4<core.v1.PersistentVolumeClaimCondition>* allocatedResources=5q% "
     "allocatedResourceStatuses=7s% currentVolumeAttributesClassName=8s? "
     "modifyVolumeStatus=9<core.v1.ModifyVolumeStatus>"},
    {"core.v1.PersistentVolumeClaimCondition",
     "type=1s? status=2s? lastProbeTime=3t lastTransitionTime=4t reason=5s message=6s"},
    {"core.v1.ModifyVolumeStatus", "targetVolumeAttributesClassName=1s status=2s?"},
    {"core.v1.PersistentVolume",
     "metadata=1<meta.v1.ObjectMeta> spec=2<core.v1.PersistentVolumeSpec> "
     "status=3<core.v1.PersistentVolumeStatus>"},
    {"core.v1.PersistentVolumeSpec",
     "capacity=1q% persistentVolumeSource=2<core.v1.PersistentVolumeSource>~ accessModes=3s* "
     "claimRef=4<core.v1.ObjectReference> persistentVolumeReclaimPolicy=5s storageClassName=6s "
     "mountOptions=7s* volumeMode=8s? nodeAffinity=9<core.v1.VolumeNodeAffinity> "
     "volumeAttributesClassName=10s?"},
    {"core.v1.PersistentVolumeSource",
     "gcePersistentDisk=1<core.v1.GCEPersistentDiskVolumeSource> "
     "awsElasticBlockStore=2<core.v1.AWSElasticBlockStoreVolumeSource> "
     "hostPath=3<core.v1.HostPathVolumeSource> "
     "glusterfs=4<core.v1.GlusterfsPersistentVolumeSource> nfs=5<core.v1.NFSVolumeSource> "
     "rbd=6<core.v1.RBDPersistentVolumeSource> iscsi=7<core.v1.ISCSIPersistentVolumeSource> "
     "cinder=8<core.v1.CinderPersistentVolumeSource> "
     "cephfs=9<core.v1.CephFSPersistentVolumeSource> fc=10<core.v1.FCVolumeSource> "
     "flocker=11<core.v1.FlockerVolumeSource> flexVolume=12<core.v1.FlexPersistentVolumeSource> "
     "azureFile=13<core.v1.AzureFilePersistentVolumeSource> "
     "vsphereVolume=14<core.v1.VsphereVirtualDiskVolumeSource> "
     "quobyte=15<core.v1.QuobyteVolumeSource> azureDisk=16<core.v1.AzureDiskVolumeSource> "
     "photonPersistentDisk=17<core.v1.PhotonPersistentDiskVolumeSource> "
     "portworxVolume=18<core.v1.PortworxVolumeSource> "
     "scaleIO=19<core.v1.ScaleIOPersistentVolumeSource> local=20<core.v1.LocalVolumeSource> "
     "storageos=21<core.v1.StorageOSPersistentVolumeSource> "
     "csi=22<core.v1.CSIPersistentVolumeSource>"},
    {"core.v1.GlusterfsPersistentVolumeSource",
     "endpoints=1s? path=2s? readOnly=3o endpointsNamespace=4s?"},
    {"core.v1.RBDPersistentVolumeSource",
     "monitors=1s* image=2s? fsType=3s pool=4s user=5s keyring=6s "
     "secretRef=7<core.v1.SecretReference> readOnly=8o"},
    {"core.v1.SecretReference", "name=1s namespace=2s"},
    {"core.v1.ISCSIPersistentVolumeSource",
     "targetPortal=1s? iqn=2s? lun=3i? iscsiInterface=4s fsType=5s readOnly=6o portals=7s* "
     "chapAuthDiscovery=8o secretRef=10<core.v1.SecretReference> chapAuthSession=11o "
     "initiatorName=12s?"},
    {"core.v1.CinderPersistentVolumeSource",
     "volumeID=1s? fsType=2s readOnly=3o secretRef=4<core.v1.SecretReference>"},
    {"core.v1.CephFSPersistentVolumeSource",
     "monitors=1s* path=2s user=3s secretFile=4s secretRef=5<core.v1.SecretReference> "
     "readOnly=6o"},
    {"core.v1.FlexPersistentVolumeSource",
     "driver=1s? fsType=2s secretRef=3<core.v1.SecretReference> readOnly=4o options=5s%"},
    {"core.v1.AzureFilePersistentVolumeSource",
     "secretName=1s? shareName=2s? readOnly=3o secretNamespace=4s?"},
    {"core.v1.ScaleIOPersistentVolumeSource",
     "gateway=1s? system=2s? secretRef=3<core.v1.SecretReference> sslEnabled=4o "
     "protectionDomain=5s storagePool=6s storageMode=7s volumeName=8s fsType=9s readOnly=10o"},
    {"core.v1.LocalVolumeSource", "path=1s? fsType=2s?"},
    {"core.v1.StorageOSPersistentVolumeSource",
     "volumeName=1s volumeNamespace=2s fsType=3s readOnly=4o "
     "secretRef=5<core.v1.ObjectReference>"},
    {"core.v1.CSIPersistentVolumeSource",
     "driver=1s? volumeHandle=2s? readOnly=3o fsType=4s volumeAttributes=5s% "
     "controllerPublishSecretRef=6<core.v1.SecretReference> "
     "nodeStageSecretRef=7<core.v1.SecretReference> "
     "nodePublishSecretRef=8<core.v1.SecretReference> "
     "controllerExpandSecretRef=9<core.v1.SecretReference> "
     "nodeExpandSecretRef=10<core.v1.SecretReference>"},
    {"core.v1.VolumeNodeAffinity", "required=1<core.v1.NodeSelector>"},
    {"core.v1.PersistentVolumeStatus", "phase=1s message=2s reason=3s lastPhaseTransitionTime=4t"},
    {"core.v1.ResourceQuota",
     "metadata=1<meta.v1.ObjectMeta> spec=2<core.v1.ResourceQuotaSpec> "
     "status=3<core.v1.ResourceQuotaStatus>"},
    {"core.v1.ResourceQuotaSpec", "hard=1q% scopes=2s* scopeSelector=3<core.v1.ScopeSelector>"},
    {"core.v1.ScopeSelector", "matchExpressions=1<core.v1.ScopedResourceSelectorRequirement>*"},
    {"core.v1.ScopedResourceSelectorRequirement", "scopeName=1s? operator=2s? values=3s*"},
    {"core.v1.ResourceQuotaStatus", "hard=1q% used=2q%"},
    {"core.v1.LimitRange", "metadata=1<meta.v1.ObjectMeta> spec=2<core.v1.LimitRangeSpec>"},
    {"core.v1.LimitRangeSpec", "limits=1<core.v1.LimitRangeItem>*"},
    {"core.v1.LimitRangeItem",
     "type=1s? max=2q% min=3q% default=4q% defaultRequest=5q% maxLimitRequestRatio=6q%"},
    {"core.v1.PodTemplate", "metadata=1<meta.v1.ObjectMeta> template=2<core.v1.PodTemplateSpec>"},
    {"core.v1.PodTemplateSpec", "metadata=1<meta.v1.ObjectMeta> spec=2<core.v1.PodSpec>"},
    {"core.v1.ReplicationController",
     "metadata=1<meta.v1.ObjectMeta> spec=2<core.v1.ReplicationControllerSpec> "
     "status=3<core.v1.ReplicationControllerStatus>"},
    {"core.v1.ReplicationControllerSpec",
     "replicas=1i? selector=2s% template=3<core.v1.PodTemplateSpec> minReadySeconds=4i"},
    {"core.v1.ReplicationControllerStatus",
     "replicas=1i? fullyLabeledReplicas=2i observedGeneration=3l readyReplicas=4i "
     "availableReplicas=5i conditions=6<core.v1.ReplicationControllerCondition>*"},
    {"core.v1.ReplicationControllerCondition",
     "type=1s? status=2s? lastTransitionTime=3t reason=4s message=5s"},
    {"core.v1.Binding", "metadata=1<meta.v1.ObjectMeta> target=2<core.v1.ObjectReference>"},
    {"apps.v1.Deployment",
     "metadata=1<meta.v1.ObjectMeta> spec=2<apps.v1.DeploymentSpec> "
     "status=3<apps.v1.DeploymentStatus>"},
    {"apps.v1.DeploymentSpec",
     "replicas=1i? selector=2<meta.v1.LabelSelector> template=3<core.v1.PodTemplateSpec> "
     "strategy=4<apps.v1.DeploymentStrategy> minReadySeconds=5i revisionHistoryLimit=6i? "
     "paused=7o progressDeadlineSeconds=9i?"},
    {"apps.v1.DeploymentStrategy", "type=1s rollingUpdate=2<apps.v1.RollingUpdateDeployment>"},
    {"apps.v1.RollingUpdateDeployment", "maxUnavailable=1x maxSurge=2x"},
    {"apps.v1.DeploymentStatus",
     "observedGeneration=1l replicas=2i updatedReplicas=3i availableReplicas=4i "
     "unavailableReplicas=5i conditions=6<apps.v1.DeploymentCondition>* readyReplicas=7i "
     "collisionCount=8i?"},
    {"apps.v1.DeploymentCondition",
     "type=1s? status=2s? reason=4s message=5s lastUpdateTime=6t lastTransitionTime=7t"},
    {"apps.v1.ReplicaSet",
     "metadata=1<meta.v1.ObjectMeta> spec=2<apps.v1.ReplicaSetSpec> "
     "status=3<apps.v1.ReplicaSetStatus>"},
    {"apps.v1.ReplicaSetSpec",
     "replicas=1i? selector=2<meta.v1.LabelSelector> template=3<core.v1.PodTemplateSpec> "
     "minReadySeconds=4i"},
    {"apps.v1.ReplicaSetStatus",
     "replicas=1i? fullyLabeledReplicas=2i observedGeneration=3l readyReplicas=4i "
     "availableReplicas=5i conditions=6<apps.v1.ReplicaSetCondition>*"},
    {"apps.v1.ReplicaSetCondition",
     "type=1s? status=2s? lastTransitionTime=3t reason=4s message=5s"},
    {"apps.v1.StatefulSet",
     "metadata=1<meta.v1.ObjectMeta> spec=2<apps.v1.StatefulSetSpec> "
     "status=3<apps.v1.StatefulSetStatus>"},
    {"apps.v1.StatefulSetSpec",
     "replicas=1i? selector=2<meta.v1.LabelSelector> template=3<core.v1.PodTemplateSpec> "
     "volumeClaimTemplates=4<core.v1.PersistentVolumeClaim>* serviceName=5s? "
     "podManagementPolicy=6s updateStrategy=7<apps.v1.StatefulSetUpdateStrategy> "
     "revisionHistoryLimit=8i? minReadySeconds=9i "
     "persistentVolumeClaimRetentionPolicy=10<apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy> "
     "ordinals=11<apps.v1.StatefulSetOrdinals>"},
    {"apps.v1.StatefulSetUpdateStrategy",
     "type=1s rollingUpdate=2<apps.v1.RollingUpdateStatefulSetStrategy>"},
    {"apps.v1.RollingUpdateStatefulSetStrategy", "partition=1i? maxUnavailable=2x"},
    {"apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy", "whenDeleted=1s whenScaled=2s"},
    {"apps.v1.StatefulSetOrdinals", "start=1i?"},
    {"apps.v1.StatefulSetStatus",
     "observedGeneration=1l replicas=2i? readyReplicas=3i currentReplicas=4i updatedReplicas=5i "
     "currentRevision=6s updateRevision=7s collisionCount=9i? "
     "conditions=10<apps.v1.StatefulSetCondition>* availableReplicas=11i?"},
    {"apps.v1.StatefulSetCondition",
     "type=1s? status=2s? lastTransitionTime=3t reason=4s message=5s"},
    {"apps.v1.DaemonSet",
     "metadata=1<meta.v1.ObjectMeta> spec=2<apps.v1.DaemonSetSpec> "
     "status=3<apps.v1.DaemonSetStatus>"},
    {"apps.v1.DaemonSetSpec",
     "selector=1<meta.v1.LabelSelector> template=2<core.v1.PodTemplateSpec> "
     "updateStrategy=3<apps.v1.DaemonSetUpdateStrategy> minReadySeconds=4i "
     "revisionHistoryLimit=6i?"},
    {"apps.v1.DaemonSetUpdateStrategy", "type=1s rollingUpdate=2<apps.v1.RollingUpdateDaemonSet>"},
    {"apps.v1.RollingUpdateDaemonSet", "maxUnavailable=1x maxSurge=2x"},
    {"apps.v1.DaemonSetStatus",
     "currentNumberScheduled=1i? numberMisscheduled=2i? desiredNumberScheduled=3i? "
     "numberReady=4i? observedGeneration=5l updatedNumberScheduled=6i numberAvailable=7i "
     "numberUnavailable=8i collisionCount=9i? conditions=10<apps.v1.DaemonSetCondition>*"},
    {"apps.v1.DaemonSetCondition",
     "type=1s? status=2s? lastTransitionTime=3t reason=4s message=5s"},
    {"batch.v1.Job",
     "metadata=1<meta.v1.ObjectMeta> spec=2<batch.v1.JobSpec> status=3<batch.v1.JobStatus>"},
    {"batch.v1.JobSpec",
     "parallelism=1i? completions=2i? activeDeadlineSeconds=3l? "
     "selector=4<meta.v1.LabelSelector> manualSelector=5o? template=6<core.v1.PodTemplateSpec> "
     "backoffLimit=7i? ttlSecondsAfterFinished=8i? completionMode=9s? suspend=10o? "
     "podFailurePolicy=11<batch.v1.PodFailurePolicy> backoffLimitPerIndex=12i? "
     "maxFailedIndexes=13i? podReplacementPolicy=14s? managedBy=15s? "
     "successPolicy=16<batch.v1.SuccessPolicy>"},
    {"batch.v1.PodFailurePolicy", "rules=1<batch.v1.PodFailurePolicyRule>*"},
    {"batch.v1.PodFailurePolicyRule",
     "action=1s? onExitCodes=2<batch.v1.PodFailurePolicyOnExitCodesRequirement> "
     "onPodConditions=3<batch.v1.PodFailurePolicyOnPodConditionsPattern>*"},
    {"batch.v1.PodFailurePolicyOnExitCodesRequirement",
     "containerName=1s? operator=2s? values=3i*"},
    {"batch.v1.PodFailurePolicyOnPodConditionsPattern", "type=1s? status=2s?"},
    {"batch.v1.SuccessPolicy", "rules=1<batch.v1.SuccessPolicyRule>*"},
    {"batch.v1.SuccessPolicyRule", "succeededIndexes=1s? succeededCount=2i?"},
    {"batch.v1.JobStatus",
     "conditions=1<batch.v1.JobCondition>* startTime=2t completionTime=3t active=4i "
     "succeeded=5i failed=6i completedIndexes=7s "
     "uncountedTerminatedPods=8<batch.v1.UncountedTerminatedPods> ready=9i? failedIndexes=10s? "
     "terminating=11i?"},
    {"batch.v1.JobCondition",
     "type=1s? status=2s? lastProbeTime=3t lastTransitionTime=4t reason=5s message=6s"},
    {"batch.v1.UncountedTerminatedPods", "succeeded=1s* failed=2s*"},
    {"batch.v1.CronJob",
     "metadata=1<meta.v1.ObjectMeta> spec=2<batch.v1.CronJobSpec> "
     "status=3<batch.v1.CronJobStatus>"},
    {"batch.v1.CronJobSpec",
     "schedule=1s? startingDeadlineSeconds=2l? concurrencyPolicy=3s suspend=4o? "
     "jobTemplate=5<batch.v1.JobTemplateSpec> successfulJobsHistoryLimit=6i? "
     "failedJobsHistoryLimit=7i? timeZone=8s?"},
    {"batch.v1.JobTemplateSpec", "metadata=1<meta.v1.ObjectMeta> spec=2<batch.v1.JobSpec>"},
    {"batch.v1.CronJobStatus",
     "active=1<core.v1.ObjectReference>* lastScheduleTime=4t lastSuccessfulTime=5t"},
    {"networking.v1.Ingress",
     "metadata=1<meta.v1.ObjectMeta> spec=2<networking.v1.IngressSpec> "
     "status=3<networking.v1.IngressStatus>"},
    {"networking.v1.IngressSpec",
     "defaultBackend=1<networking.v1.IngressBackend> tls=2<networking.v1.IngressTLS>* "
     "rules=3<networking.v1.IngressRule>* ingressClassName=4s?"},
    {"networking.v1.IngressBackend",
     "resource=3<core.v1.TypedLocalObjectReference> "
     "service=4<networking.v1.IngressServiceBackend>"},
    {"networking.v1.IngressServiceBackend", "name=1s? port=2<networking.v1.ServiceBackendPort>"},
    {"networking.v1.ServiceBackendPort", "name=1s number=2i"},
    {"networking.v1.IngressTLS", "hosts=1s* secretName=2s"},
    {"networking.v1.IngressRule", "host=1s ingressRuleValue=2<networking.v1.IngressRuleValue>~"},
    {"networking.v1.IngressRuleValue", "http=1<networking.v1.HTTPIngressRuleValue>"},
    {"networking.v1.HTTPIngressRuleValue", "paths=1<networking.v1.HTTPIngressPath>*"},
    {"networking.v1.HTTPIngressPath",
     "path=1s backend=2<networking.v1.IngressBackend> pathType=3s?"},
    {"networking.v1.IngressStatus", "loadBalancer=1<networking.v1.IngressLoadBalancerStatus>"},
    {"networking.v1.IngressLoadBalancerStatus",
     "ingress=1<networking.v1.IngressLoadBalancerIngress>*"},
    {"networking.v1.IngressLoadBalancerIngress",
     "ip=1s hostname=2s ports=4<networking.v1.IngressPortStatus>*"},
    {"networking.v1.IngressPortStatus", "port=1i? protocol=2s? error=3s?"},
    {"networking.v1.IngressClass",
     "metadata=1<meta.v1.ObjectMeta> spec=2<networking.v1.IngressClassSpec>"},
    {"networking.v1.IngressClassSpec",
     "controller=1s parameters=2<networking.v1.IngressClassParametersReference>"},
    {"networking.v1.IngressClassParametersReference",
     "apiGroup=1s? kind=2s? name=3s? scope=4s? namespace=5s?"},
    {"networking.v1.NetworkPolicy",
     "metadata=1<meta.v1.ObjectMeta> spec=2<networking.v1.NetworkPolicySpec>"},
    {"networking.v1.NetworkPolicySpec",
     "podSelector=1<meta.v1.LabelSelector> ingress=2<networking.v1.NetworkPolicyIngressRule>* "
     "egress=3<networking.v1.NetworkPolicyEgressRule>* policyTypes=4s*"},
    {"networking.v1.NetworkPolicyIngressRule",
     "ports=1<networking.v1.NetworkPolicyPort>* from=2<networking.v1.NetworkPolicyPeer>*"},
    {"networking.v1.NetworkPolicyPort", "protocol=1s? port=2x endPort=3i?"},
    {"networking.v1.NetworkPolicyPeer",
     "podSelector=1<meta.v1.LabelSelector> namespaceSelector=2<meta.v1.LabelSelector> "
     "ipBlock=3<networking.v1.IPBlock>"},
    {"networking.v1.IPBlock", "cidr=1s? except=2s*"},
    {"networking.v1.NetworkPolicyEgressRule",
     "ports=1<networking.v1.NetworkPolicyPort>* to=2<networking.v1.NetworkPolicyPeer>*"},
    {"policy.v1.PodDisruptionBudget",
     "metadata=1<meta.v1.ObjectMeta> spec=2<policy.v1.PodDisruptionBudgetSpec> "
     "status=3<policy.v1.PodDisruptionBudgetStatus>"},
    {"policy.v1.PodDisruptionBudgetSpec",
     "minAvailable=1x selector=2<meta.v1.LabelSelector> maxUnavailable=3x "
     "unhealthyPodEvictionPolicy=4s?"},
    {"policy.v1.PodDisruptionBudgetStatus",
     "observedGeneration=1l disruptedPods=2t% disruptionsAllowed=3i? currentHealthy=4i? "
     "desiredHealthy=5i? expectedPods=6i? conditions=7<meta.v1.Condition>*"},
    {"policy.v1.Eviction", "metadata=1<meta.v1.ObjectMeta> deleteOptions=2<meta.v1.DeleteOptions>"},
    {"meta.v1.DeleteOptions",
     "gracePeriodSeconds=1l? preconditions=2<meta.v1.Preconditions> orphanDependents=3o? "
     "propagationPolicy=4s? dryRun=5s* ignoreStoreReadErrorWithClusterBreakingPotential=6o?"},
    {"meta.v1.Preconditions", "uid=1s? resourceVersion=2s?"},
    {"rbac.v1.Role", "metadata=1<meta.v1.ObjectMeta> rules=2<rbac.v1.PolicyRule>*"},
    {"rbac.v1.PolicyRule",
     "verbs=1s* apiGroups=2s* resources=3s* resourceNames=4s* nonResourceURLs=5s*"},
    {"rbac.v1.ClusterRole",
     "metadata=1<meta.v1.ObjectMeta> rules=2<rbac.v1.PolicyRule>* "
     "aggregationRule=3<rbac.v1.AggregationRule>"},
    {"rbac.v1.AggregationRule", "clusterRoleSelectors=1<meta.v1.LabelSelector>*"},
    {"rbac.v1.RoleBinding",
     "metadata=1<meta.v1.ObjectMeta> subjects=2<rbac.v1.Subject>* roleRef=3<rbac.v1.RoleRef>"},
    {"rbac.v1.Subject", "kind=1s? apiGroup=2s name=3s? namespace=4s"},
    {"rbac.v1.RoleRef", "apiGroup=1s? kind=2s? name=3s?"},
    {"rbac.v1.ClusterRoleBinding",
     "metadata=1<meta.v1.ObjectMeta> subjects=2<rbac.v1.Subject>* roleRef=3<rbac.v1.RoleRef>"},
    {"scheduling.v1.PriorityClass",
     "metadata=1<meta.v1.ObjectMeta> value=2i? globalDefault=3o description=4s "
     "preemptionPolicy=5s?"},
    {"coordination.v1.Lease", "metadata=1<meta.v1.ObjectMeta> spec=2<coordination.v1.LeaseSpec>"},
    {"coordination.v1.LeaseSpec",
     "holderIdentity=1s? leaseDurationSeconds=2i? acquireTime=3T renewTime=4T "
     "leaseTransitions=5i? strategy=6s? preferredHolder=7s?"},
    {"discovery.v1.EndpointSlice",
     "metadata=1<meta.v1.ObjectMeta> endpoints=2<discovery.v1.Endpoint>* "
     "ports=3<discovery.v1.EndpointPort>* addressType=4s?"},
    {"discovery.v1.Endpoint",
     "addresses=1s* conditions=2<discovery.v1.EndpointConditions> hostname=3s? "
     "targetRef=4<core.v1.ObjectReference> deprecatedTopology=5s% nodeName=6s? zone=7s? "
     "hints=8<discovery.v1.EndpointHints>"},
    {"discovery.v1.EndpointConditions", "ready=1o? serving=2o? terminating=3o?"},
    {"discovery.v1.EndpointHints", "forZones=1<discovery.v1.ForZone>*"},
    {"discovery.v1.ForZone", "name=1s?"},
    {"discovery.v1.EndpointPort", "name=1s? protocol=2s? port=3i? appProtocol=4s?"},
    {"events.v1.Event",
     "metadata=1<meta.v1.ObjectMeta> eventTime=2T series=3<events.v1.EventSeries> "
     "reportingController=4s reportingInstance=5s action=6s reason=7s "
     "regarding=8<core.v1.ObjectReference> related=9<core.v1.ObjectReference> note=10s type=11s "
     "deprecatedSource=12<core.v1.EventSource> deprecatedFirstTimestamp=13t "
     "deprecatedLastTimestamp=14t deprecatedCount=15i"},
    {"events.v1.EventSeries", "count=1i? lastObservedTime=2T"},
    {"autoscaling.v1.HorizontalPodAutoscaler",
     "metadata=1<meta.v1.ObjectMeta> spec=2<autoscaling.v1.HorizontalPodAutoscalerSpec> "
     "status=3<autoscaling.v1.HorizontalPodAutoscalerStatus>"},
    {"autoscaling.v1.HorizontalPodAutoscalerSpec",
     "scaleTargetRef=1<autoscaling.v1.CrossVersionObjectReference> minReplicas=2i? "
     "maxReplicas=3i? targetCPUUtilizationPercentage=4i?"},
    {"autoscaling.v1.CrossVersionObjectReference", "kind=1s? name=2s? apiVersion=3s"},
    {"autoscaling.v1.HorizontalPodAutoscalerStatus",
     "observedGeneration=1l? lastScaleTime=2t currentReplicas=3i? desiredReplicas=4i? "
     "currentCPUUtilizationPercentage=5i?"},
    {"autoscaling.v1.Scale",
     "metadata=1<meta.v1.ObjectMeta> spec=2<autoscaling.v1.ScaleSpec> "
     "status=3<autoscaling.v1.ScaleStatus>"},
    {"autoscaling.v1.ScaleSpec", "replicas=1i"},
    {"autoscaling.v1.ScaleStatus", "replicas=1i? selector=2s"},
    {"autoscaling.v2.HorizontalPodAutoscaler",
     "metadata=1<meta.v1.ObjectMeta> spec=2<autoscaling.v2.HorizontalPodAutoscalerSpec> "
     "status=3<autoscaling.v2.HorizontalPodAutoscalerStatus>"},
    {"autoscaling.v2.HorizontalPodAutoscalerSpec",
     "scaleTargetRef=1<autoscaling.v2.CrossVersionObjectReference> minReplicas=2i? "
     "maxReplicas=3i? metrics=4<autoscaling.v2.MetricSpec>* "
     "behavior=5<autoscaling.v2.HorizontalPodAutoscalerBehavior>"},
    {"autoscaling.v2.CrossVersionObjectReference", "kind=1s? name=2s? apiVersion=3s"},
    {"autoscaling.v2.MetricSpec",
     "type=1s? object=2<autoscaling.v2.ObjectMetricSource> "
     "pods=3<autoscaling.v2.PodsMetricSource> resource=4<autoscaling.v2.ResourceMetricSource> "
     "external=5<autoscaling.v2.ExternalMetricSource> "
     "containerResource=7<autoscaling.v2.ContainerResourceMetricSource>"},
    {"autoscaling.v2.ObjectMetricSource",
     "describedObject=1<autoscaling.v2.CrossVersionObjectReference> "
     "target=2<autoscaling.v2.MetricTarget> metric=3<autoscaling.v2.MetricIdentifier>"},
    {"autoscaling.v2.MetricTarget", "type=1s? value=2q averageValue=3q averageUtilization=4i?"},
    {"autoscaling.v2.MetricIdentifier", "name=1s? selector=2<meta.v1.LabelSelector>"},
    {"autoscaling.v2.PodsMetricSource",
     "metric=1<autoscaling.v2.MetricIdentifier> target=2<autoscaling.v2.MetricTarget>"},
    {"autoscaling.v2.ResourceMetricSource", "name=1s? target=2<autoscaling.v2.MetricTarget>"},
    {"autoscaling.v2.ContainerResourceMetricSource",
     "name=1s? target=2<autoscaling.v2.MetricTarget> container=3s?"},
    {"autoscaling.v2.ExternalMetricSource",
     "metric=1<autoscaling.v2.MetricIdentifier> target=2<autoscaling.v2.MetricTarget>"},
    {"autoscaling.v2.HorizontalPodAutoscalerBehavior",
     "scaleUp=1<autoscaling.v2.HPAScalingRules> scaleDown=2<autoscaling.v2.HPAScalingRules>"},
    {"autoscaling.v2.HPAScalingRules",
     "selectPolicy=1s? policies=2<autoscaling.v2.HPAScalingPolicy>* "
     "stabilizationWindowSeconds=3i?"},
    {"autoscaling.v2.HPAScalingPolicy", "type=1s? value=2i? periodSeconds=3i?"},
    {"autoscaling.v2.HorizontalPodAutoscalerStatus",
     "observedGeneration=1l? lastScaleTime=2t currentReplicas=3i desiredReplicas=4i? "
     "currentMetrics=5<autoscaling.v2.MetricStatus>* "
     "conditions=6<autoscaling.v2.HorizontalPodAutoscalerCondition>*"},
    {"autoscaling.v2.MetricStatus",
     "type=1s? object=2<autoscaling.v2.ObjectMetricStatus> "
     "pods=3<autoscaling.v2.PodsMetricStatus> resource=4<autoscaling.v2.ResourceMetricStatus> "
     "external=5<autoscaling.v2.ExternalMetricStatus> "
     "containerResource=7<autoscaling.v2.ContainerResourceMetricStatus>"},
    {"autoscaling.v2.ObjectMetricStatus",
     "metric=1<autoscaling.v2.MetricIdentifier> current=2<autoscaling.v2.MetricValueStatus> "
     "describedObject=3<autoscaling.v2.CrossVersionObjectReference>"},
    {"autoscaling.v2.MetricValueStatus", "value=1q averageValue=2q averageUtilization=3i?"},
    {"autoscaling.v2.PodsMetricStatus",
     "metric=1<autoscaling.v2.MetricIdentifier> current=2<autoscaling.v2.MetricValueStatus>"},
    {"autoscaling.v2.ResourceMetricStatus", "name=1s? current=2<autoscaling.v2.MetricValueStatus>"},
    {"autoscaling.v2.ContainerResourceMetricStatus",
     "name=1s? current=2<autoscaling.v2.MetricValueStatus> container=3s?"},
    {"autoscaling.v2.ExternalMetricStatus",
     "metric=1<autoscaling.v2.MetricIdentifier> current=2<autoscaling.v2.MetricValueStatus>"},
    {"autoscaling.v2.HorizontalPodAutoscalerCondition",
     "type=1s? status=2s? lastTransitionTime=3t reason=4s message=5s"},
    {"storage.v1.StorageClass",
     "metadata=1<meta.v1.ObjectMeta> provisioner=2s? parameters=3s% reclaimPolicy=4s? "
     "mountOptions=5s* allowVolumeExpansion=6o? volumeBindingMode=7s? "
     "allowedTopologies=8<core.v1.TopologySelectorTerm>*"},
    {"core.v1.TopologySelectorTerm",
     "matchLabelExpressions=1<core.v1.TopologySelectorLabelRequirement>*"},
    {"core.v1.TopologySelectorLabelRequirement", "key=1s? values=2s*"},
};

struct Registry {
  std::map<std::string, std::unique_ptr<ProtoMessageSpec>, std::less<>> messages;
  Status status = Status::Ok();
};

Status ParseField(std::string_view token, const Registry& registry, const std::string& message,
                  ProtoFieldSpec* out) {
  auto bad = [&](std::string why) {
    return InternalError("protobuf message table: " + message + " field \"" +
                         std::string(token) + "\": " + why);
  };
  size_t eq = token.find('=');
  if (eq == std::string_view::npos || eq == 0) return bad("expected name=<number><type>");
  out->json_name = std::string(token.substr(0, eq));
  std::string_view rest = token.substr(eq + 1);
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), out->number);
  if (ec != std::errc() || out->number == 0) return bad("bad field number");
  rest.remove_prefix(static_cast<size_t>(end - rest.data()));
  if (rest.empty()) return bad("missing type");
  if (rest[0] == '<') {
    size_t close = rest.find('>');
    if (close == std::string_view::npos) return bad("unterminated message type");
    auto it = registry.messages.find(rest.substr(1, close - 1));
    if (it == registry.messages.end()) return bad("unknown message");
    out->type = ProtoType::kMessage;
    out->message = it->second.get();
    rest.remove_prefix(close + 1);
  } else {
    switch (rest[0]) {
      case 's': out->type = ProtoType::kString; break;
      case 'b': out->type = ProtoType::kBytes; break;
      case 'i': out->type = ProtoType::kInt32; break;
      case 'l': out->type = ProtoType::kInt64; break;
      case 'o': out->type = ProtoType::kBool; break;
      case 'q': out->type = ProtoType::kQuantity; break;
      case 'x': out->type = ProtoType::kIntOrString; break;
      case 't': out->type = ProtoType::kTime; break;
      case 'T': out->type = ProtoType::kMicroTime; break;
      case 'f': out->type = ProtoType::kFieldsV1; break;
      default: return bad("unknown type code");
    }
    rest.remove_prefix(1);
  }
  for (char m : rest) {
    switch (m) {
      case '*': out->repeated = true; break;
      case '%': out->map = true; break;
      case '~': out->inlined = true; break;
      case '?': out->keep_zero = true; break;
      default: return bad("unknown modifier");
    }
  }
  if (out->inlined && out->type != ProtoType::kMessage) return bad("only messages can be inline");
  return Status::Ok();
}

std::unique_ptr<Registry> BuildRegistry() {
  auto registry = std::make_unique<Registry>();
  // Two passes: every message exists before fields refer to it.
  for (const MessageEntry& e : kMessages) {
    auto spec = std::make_unique<ProtoMessageSpec>();
    spec->name = e.name;
    registry->messages.emplace(e.name, std::move(spec));
  }
  for (const MessageEntry& e : kMessages) {
    ProtoMessageSpec* spec = registry->messages[e.name].get();
    std::string_view text = e.spec;
    while (!text.empty()) {
      size_t space = text.find(' ');
      std::string_view token = text.substr(0, space);
      text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
      if (token.empty()) continue;
      ProtoFieldSpec field;
      Status s = ParseField(token, *registry, e.name, &field);
      if (!s.ok()) {
        if (registry->status.ok()) registry->status = s;
        continue;
      }
      spec->fields.push_back(std::move(field));
    }
  }
  return registry;
}

const Registry& GetRegistry() {
  static const Registry* registry = BuildRegistry().release();
  return *registry;
}

}  // namespace

const ProtoFieldSpec* ProtoMessageSpec::Find(uint32_t number) const {
  for (const ProtoFieldSpec& f : fields) {
    if (f.number == number) return &f;
  }
  return nullptr;
}

const ProtoMessageSpec* FindProtoMessage(std::string_view name) {
  const Registry& r = GetRegistry();
  auto it = r.messages.find(name);
  return it == r.messages.end() ? nullptr : it->second.get();
}

const ProtoMessageSpec* FindProtoMessageForKind(std::string_view api_version,
                                                std::string_view kind) {
  // API group -> the table's package name.
  static constexpr std::pair<std::string_view, std::string_view> kGroups[] = {
      {"", "core"},
      {"apps", "apps"},
      {"batch", "batch"},
      {"networking.k8s.io", "networking"},
      {"policy", "policy"},
      {"rbac.authorization.k8s.io", "rbac"},
      {"scheduling.k8s.io", "scheduling"},
      {"coordination.k8s.io", "coordination"},
      {"discovery.k8s.io", "discovery"},
      {"events.k8s.io", "events"},
      {"autoscaling", "autoscaling"},
      {"storage.k8s.io", "storage"},
  };
  std::string_view group;
  std::string_view version = api_version;
  if (size_t slash = api_version.find('/'); slash != std::string_view::npos) {
    group = api_version.substr(0, slash);
    version = api_version.substr(slash + 1);
  }
  if (version.empty() || kind.empty()) return nullptr;
  for (const auto& [api_group, package] : kGroups) {
    if (api_group != group) continue;
    return FindProtoMessage(std::string(package) + "." + std::string(version) + "." +
                            std::string(kind));
  }
  return nullptr;
}

Status CheckProtoMessageTable() { return GetRegistry().status; }

}  // namespace trimtab::cluster
