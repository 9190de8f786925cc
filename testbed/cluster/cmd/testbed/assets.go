package main

// What the testbed puts into the cluster besides the components: the scheduler's configuration,
// KWOK's stages (including Tephra's own outcome stages), fake GPU nodes (and their CSINodes) and
// priority classes.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// schedulerConf enables the gang gate and the capacity plugin (queues with deserved and
// capability, hierarchical), with reclaim so queues can take back what they lent, and shared
// GPUs: deviceshare's vGPU mode places volcano.sh/vgpu-* pods on a card of a node that
// registers vGPUs (see vgpu.go), and predicates writes the card chosen onto the pod.
//
// There is no enqueue action: with the capacity plugin, enqueue refuses every gang while the
// cluster (the root queue) or a parent queue is full, and reclaim only acts for gangs already
// enqueued, so a project could never take back its quota from one that borrowed it all
// (volcano-sh/volcano#4679, #4817). Without it, allocate moves a gang Inqueue itself and still
// binds a gang only whole, within every queue's capability.
const schedulerConf = `actions: "allocate, backfill, reclaim"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: drf
    enablePreemptable: false
  - name: deviceshare
    arguments:
      deviceshare.VGPUEnable: true
  - name: predicates
  - name: capacity
    enableHierarchy: true
  - name: nodeorder
  - name: binpack
`

// Annotations a test puts on a pod (or its task template) to decide how it ends.
const (
	outcomeAnnotation  = "testbed.tephra.dev/outcome"      // Succeeded or Failed
	durationAnnotation = "testbed.tephra.dev/run-duration" // e.g. 3s; default immediately
	exitCodeAnnotation = "testbed.tephra.dev/exit-code"    // for Failed; default 1
	// For Failed: the terminated container's reason as the kubelet reports it (OOMKilled for a
	// container the kernel killed at its memory limit); default Error.
	reasonAnnotation = "testbed.tephra.dev/reason"
)

// outcomeStages make a Running pod succeed or fail when it carries the outcome annotation, at
// submit time or patched on later. KWOK's own pod-complete stage is left out on purpose: it
// matches every pod owned by a "Job", Volcano's included, and would finish them at once.
func outcomeStages() string {
	stage := func(name, outcome, state, exitCode, restarting string) string {
		return stageHead(name, outcome, "NotIn", restarting) + fmt.Sprintf(`  delay:
    durationMilliseconds: 0
    durationFrom:
      jq:
        expression: '.metadata.annotations["%s"]'
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $code := or (index .metadata.annotations "%s") "%s" }}
      {{ $reason := or (index .metadata.annotations "%s") "%s" }}
%s      phase: %s
`, durationAnnotation, exitCodeAnnotation, exitCode, reasonAnnotation, state,
			containersEnded("{{ $code }}", "{{ $reason }}"), outcome)
	}
	// The kubelet restarts a failed container under OnFailure and Always, and a succeeded one
	// under Always: those pods do not end (see restartStage for failures).
	return stage("testbed-pod-succeed", "Succeeded", "Completed", "0", "Always") + "---\n" +
		stage("testbed-pod-fail", "Failed", "Error", "1", "OnFailure, Always") + "---\n" +
		restartStage()
}

// stageHead is a stage's name and selector: a Running pod, not being deleted, carrying the
// outcome annotation with `outcome`, whose restartPolicy is (`op` In) or is not (NotIn) one of
// `policies`.
func stageHead(name, outcome, op, policies string) string {
	return podStage(name, "DoesNotExist") + fmt.Sprintf(`    - key: .status.phase
      operator: In
      values: [Running]
    - key: .spec.restartPolicy
      operator: %s
      values: [%s]
    matchAnnotations:
      %s: %s
`, op, policies, outcomeAnnotation, outcome)
}

// restartStage makes a failing pod whose restartPolicy is OnFailure or Always crash-loop as a
// kubelet would: every run-duration (at least a second) its container exits with the exit code
// and starts again, restartCount going up by one, and the pod stays Running. Volcano counts
// these restarts against the task's maxRetry (TaskFailed).
func restartStage() string {
	return stageHead("testbed-pod-restart", "Failed", "In", "OnFailure, Always") + fmt.Sprintf(`  delay:
    durationMilliseconds: 1000
    durationFrom:
      jq:
        expression: '.metadata.annotations["%s"]'
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $code := or (index .metadata.annotations "%s") "1" }}
      {{ $reason := or (index .metadata.annotations "%s") "Error" }}
      {{ $restarts := 0 }}
      {{ with .status.containerStatuses }}{{ $restarts = (index . 0).restartCount }}{{ end }}
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: true
        started: true
        restartCount: {{ add1 $restarts }}
        lastState:
          terminated:
            exitCode: {{ $code }}
            reason: {{ $reason }}
            startedAt: {{ $now | Quote }}
            finishedAt: {{ $now | Quote }}
        state:
          running:
            startedAt: {{ $now | Quote }}
      {{ end }}
      phase: Running
`, durationAnnotation, exitCodeAnnotation, reasonAnnotation)
}

// unpullableHost is a registry no cluster can reach: ".invalid" never resolves (RFC 2606), so a
// real kubelet fails to pull any image under it, and the testbed's does the same.
const unpullableHost = "registry.invalid/"

// unpullableExpression selects (In) or leaves out (NotIn) the pods with a container whose image is
// under unpullableHost.
func unpullableExpression(op string) string {
	return fmt.Sprintf(`    - key: '[.spec.containers.[].image | select(startswith("%s"))] | length > 0 | tostring'
      operator: '%s'
      values: ['true']
`, unpullableHost, op)
}

// pullFailureStage holds a pod whose image cannot be pulled in Pending, its containers waiting
// with ErrImagePull and the message a kubelet gives when the registry's name does not resolve.
func pullFailureStage() string {
	return podStage("testbed-pod-image-pull", "DoesNotExist") + `    - key: .status.phase
      operator: In
      values: [Pending]
    - key: '.status.containerStatuses.[0].state.waiting.reason'
      operator: NotIn
      values: [ErrImagePull]
` + unpullableExpression("In") + `  next:
    statusTemplate: |
` + eachContainer(`          waiting:
            reason: ErrImagePull
            message: {{ printf "failed to pull and unpack image %q: failed to resolve reference %q: dial tcp: lookup registry.invalid: no such host" .image .image | Quote }}
`) + `      phase: Pending
`
}

// runningExpression selects (In) or leaves out (NotIn) the pods with a container that runs.
func runningExpression(op string) string {
	return fmt.Sprintf(`    - key: '[(.status.containerStatuses // [])[] | select(.state.running != null)] | length > 0 | tostring'
      operator: '%s'
      values: ['true']
`, op)
}

// terminateStage stops the containers of a pod being deleted, as a kubelet does before the pod
// goes; KWOK's pod-delete stage waits for it (runningExpression NotIn). Without it a pod deleted
// in the foreground could wait for ever on the claim of its own ephemeral volume: the pod's
// foregroundDeletion waits for the claim, and the claim's protection waits for the pod, and looks
// again only when the pod's containers stop or it goes (kube-controller-manager's
// pvc-protection controller; a kubelet breaks the cycle by reporting them stopped). The
// containers end as a process that handles SIGTERM does (exit 0) and the phase stays: a kubelet
// reports the pod's end only once it is gone.
func terminateStage() string {
	return podStage("testbed-pod-terminate", "Exists") + runningExpression("In") + `  next:
    statusTemplate: |
      {{ $now := Now }}
` + containersEnded("0", "Completed")
}

// containersEnded is a status template's containerStatuses: every container of the pod
// terminated at $now with exit code `code` and reason `reason` (literals, or template actions).
func containersEnded(code, reason string) string {
	return eachContainer(`          terminated:
            exitCode: ` + code + `
            reason: ` + reason + `
            startedAt: {{ $now | Quote }}
            finishedAt: {{ $now | Quote }}
`)
}

// eachContainer is a status template's containerStatuses: every container of the pod, not
// ready, in `state` (the lines under state:, indented for it).
func eachContainer(state string) string {
	return `      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: false
        started: false
        restartCount: 0
        state:
` + state + `      {{ end }}
`
}

// podStage is the head of a stage of Tephra's own for pods, up to its first selector
// expression: the pod's deletionTimestamp `deletion` (Exists or DoesNotExist).
func podStage(name, deletion string) string {
	return fmt.Sprintf(`apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: %s
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: .metadata.deletionTimestamp
      operator: %s
`, name, deletion)
}

// extendSelector adds expressions to a stock stage's only matchExpressions.
func extendSelector(stage, expressions string) (string, error) {
	head := "    matchExpressions:\n"
	if strings.Count(stage, head) != 1 {
		return "", fmt.Errorf("no single matchExpressions to extend")
	}
	return strings.Replace(stage, head, head+expressions, 1), nil
}

// kwokConfig joins KWOK's stock stages for nodes and pods (from its module) with the outcome
// stages into one --config file.
func kwokConfig(kwokDir string) (string, error) {
	parts := []string{}
	for _, rel := range []string{
		"kustomize/stage/node/fast/node-initialize.yaml",
		"kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
		"kustomize/stage/pod/fast/pod-ready.yaml",
		"kustomize/stage/pod/fast/pod-delete.yaml",
	} {
		data, err := os.ReadFile(filepath.Join(kwokDir, rel))
		if err != nil {
			return "", fmt.Errorf("KWOK stage %s: %w", rel, err)
		}
		stage := string(data)
		switch {
		case strings.HasSuffix(rel, "/pod-ready.yaml"):
			// A container whose image cannot be pulled never starts, nor does a pod whose
			// Secrets and ConfigMaps are not all found yet (podconfig.go).
			stage, err = extendSelector(stage, unpullableExpression("NotIn")+podConfigHoldExpression)
		case strings.HasSuffix(rel, "/pod-delete.yaml"):
			// A pod goes once its containers have stopped (terminateStage).
			stage, err = extendSelector(stage, runningExpression("NotIn"))
		}
		if err != nil {
			return "", fmt.Errorf("KWOK stage %s: %w", rel, err)
		}
		parts = append(parts, strings.TrimSpace(stage))
	}
	parts = append(parts, strings.TrimSpace(outcomeStages()), strings.TrimSpace(pullFailureStage()),
		strings.TrimSpace(terminateStage()))
	return strings.Join(parts, "\n---\n") + "\n", nil
}

// The fake GPUs' model, as a node's label and its vGPU device type.
const gpuProduct = "A100-SXM4-80GB"

type nodeShape struct {
	count     int
	gpus      int
	vgpuSplit int // vGPUs per GPU; 0 registers none
	gpuMemory int // MiB per GPU, which its vGPUs share
	cpu       string
	memory    string
	pods      int
	poolLabel string
	pools     []string
	taints    []string // key=value:Effect
}

func (s nodeShape) manifests() string {
	var out []string
	for i := 0; i < s.count; i++ {
		name := fmt.Sprintf("gpu-node-%d", i)
		labels := fmt.Sprintf("      kubernetes.io/hostname: %s\n      kubernetes.io/os: linux\n      kubernetes.io/arch: amd64\n      type: kwok\n      tephra.dev/node-type: gpu\n      nvidia.com/gpu.product: %s\n", name, gpuProduct)
		if len(s.pools) > 0 {
			labels += fmt.Sprintf("      %s: %s\n", s.poolLabel, s.pools[i%len(s.pools)])
		}
		taints := ""
		for _, t := range s.taints {
			kv, effect, _ := strings.Cut(t, ":")
			key, value, _ := strings.Cut(kv, "=")
			taints += fmt.Sprintf("  - key: %q\n    value: %q\n    effect: %q\n", key, value, effect)
		}
		if taints != "" {
			taints = "  taints:\n" + taints
		}
		resources := fmt.Sprintf("    cpu: %q\n    memory: %q\n    pods: \"%d\"\n    nvidia.com/gpu: \"%d\"\n", s.cpu, s.memory, s.pods, s.gpus)
		annotations := ""
		if s.vgpuSplit > 0 && s.gpus > 0 {
			// The same cards again as vGPUs, as Volcano's vGPU device plugin would advertise
			// them: whole-GPU pods count nvidia.com/gpu and vGPU pods volcano.sh/vgpu-*, each
			// against a pool of its own, so nvidia.com/gpu stays what --gpus says.
			resources += fmt.Sprintf("    volcano.sh/vgpu-number: \"%d\"\n    volcano.sh/vgpu-memory: \"%d\"\n    volcano.sh/vgpu-cores: \"%d\"\n",
				s.gpus*s.vgpuSplit, s.gpus*s.gpuMemory, s.gpus*100)
			annotations = fmt.Sprintf("    %s: %q\n    %s: %q\n",
				vgpuRegisterAnnotation, s.vgpuRegister(i), vgpuHandshakeAnnotation, vgpuHandshake(time.Now()))
		}
		out = append(out, fmt.Sprintf(`apiVersion: v1
kind: Node
metadata:
  name: %s
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
%s  labels:
%sspec:
%s
status:
  allocatable:
%s  capacity:
%s`, name, annotations, strings.ReplaceAll(labels, "      ", "    "), taints, resources, resources))
		out = append(out, csiNode(name))
	}
	return strings.Join(out, "---\n")
}

// priorityClasses are the ones Tephra's default cluster profile maps Run:ai's names to.
const priorityClasses = `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: tephra-inference
value: 10000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: tephra-build
value: 8000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: tephra-interactive-preemptible
value: 5000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: tephra-train
value: 1000
`
