package main

// What the testbed puts into the cluster besides the components: the scheduler's configuration,
// KWOK's stages (including Tephra's own outcome stages), fake GPU nodes and priority classes.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// schedulerConf enables the gang gate and the capacity plugin (queues with deserved and
// capability, hierarchical), with reclaim so queues can take back what they lent.
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
)

// outcomeStages make a Running pod succeed or fail when it carries the outcome annotation, at
// submit time or patched on later. KWOK's own pod-complete stage is left out on purpose: it
// matches every pod owned by a "Job", Volcano's included, and would finish them at once.
func outcomeStages() string {
	stage := func(name, outcome, state, exitCode string) string {
		return fmt.Sprintf(`apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: %s
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchAnnotations:
      %s: %s
    matchExpressions:
    - key: .metadata.deletionTimestamp
      operator: DoesNotExist
    - key: .status.phase
      operator: In
      values: [Running]
  delay:
    durationMilliseconds: 0
    durationFrom:
      jq:
        expression: '.metadata.annotations["%s"]'
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $code := or (index .metadata.annotations "%s") "%s" }}
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: false
        started: false
        restartCount: 0
        state:
          terminated:
            exitCode: {{ $code }}
            reason: %s
            startedAt: {{ $now | Quote }}
            finishedAt: {{ $now | Quote }}
      {{ end }}
      phase: %s
`, name, outcomeAnnotation, outcome, durationAnnotation, exitCodeAnnotation, exitCode, state, outcome)
	}
	return stage("testbed-pod-succeed", "Succeeded", "Completed", "0") + "---\n" +
		stage("testbed-pod-fail", "Failed", "Error", "1")
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
		parts = append(parts, strings.TrimSpace(string(data)))
	}
	parts = append(parts, strings.TrimSpace(outcomeStages()))
	return strings.Join(parts, "\n---\n") + "\n", nil
}

type nodeShape struct {
	count     int
	gpus      int
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
		labels := fmt.Sprintf("      kubernetes.io/hostname: %s\n      kubernetes.io/os: linux\n      kubernetes.io/arch: amd64\n      type: kwok\n      tephra.dev/node-type: gpu\n      nvidia.com/gpu.product: A100-SXM4-80GB\n", name)
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
		out = append(out, fmt.Sprintf(`apiVersion: v1
kind: Node
metadata:
  name: %s
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
  labels:
%sspec:
%s
status:
  allocatable:
%s  capacity:
%s`, name, strings.ReplaceAll(labels, "      ", "    "), taints, resources, resources))
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
