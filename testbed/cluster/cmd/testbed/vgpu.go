package main

// The fake vGPU device plugin: what Volcano's scheduler needs to see on a node to share its GPUs
// as vGPUs (deviceshare with VGPUEnable, Volcano v1.14.1, pkg/scheduler/api/devices/nvidia/vgpu),
// and the loop that keeps it seeing them.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

const (
	vgpuRegisterAnnotation  = "volcano.sh/node-vgpu-register"
	vgpuHandshakeAnnotation = "volcano.sh/node-vgpu-handshake"
)

// vgpuRegister lists node i's GPUs as the device plugin registers them: every card as
// "UUID,vGPUs,MiB,type,healthy,mode:". A card takes at most that many vGPU pods and that much
// volcano.sh/vgpu-memory, and 100 volcano.sh/vgpu-cores.
func (s nodeShape) vgpuRegister(i int) string {
	var register strings.Builder
	for gpu := 0; gpu < s.gpus; gpu++ {
		// Volcano finds a pod's card by substring, so the UUIDs all have one length.
		fmt.Fprintf(&register, "GPU-%08x-0000-4000-8000-%012x,%d,%d,NVIDIA-%s,true,hami-core:",
			i, gpu, s.vgpuSplit, s.gpuMemory, gpuProduct)
	}
	return register.String()
}

// vgpuHandshake is the handshake the plugin writes at now. The scheduler uses a node's cards
// only while its handshake reads "Requesting_<time>", that time (read as UTC) less than 60 s
// old; the real plugin writes "Reported <time>" and the scheduler answers with a fresh
// "Requesting_". Here it cannot answer: it patches nodes through an in-cluster client only,
// which a scheduler outside a cluster lacks, and the nil client panics (so would an expired
// "Requesting_"). So the fake plugin writes the answer itself, dated a day ahead: should the
// loop stop, the scheduler keeps the cards instead of crashing a minute later. (Volcano v1.14.4
// and v1.15.1 drop the handshake and want vgpu-number, vgpu-memory and vgpu-cores allocatable
// instead, which the nodes have too.)
func vgpuHandshake(now time.Time) string {
	return "Requesting_" + now.UTC().Add(vgpuHandshakeLead).Format(vgpuHandshakeLayout)
}

const (
	vgpuHandshakeLead   = 24 * time.Hour
	vgpuHandshakeLayout = "2006.01.02 15:04:05"
)

// vgpuRefreshed is when the plugin wrote a handshake, to the second.
func vgpuRefreshed(handshake string) (time.Time, error) {
	stamp, ok := strings.CutPrefix(handshake, "Requesting_")
	if !ok {
		return time.Time{}, fmt.Errorf("handshake %q", handshake)
	}
	at, err := time.Parse(vgpuHandshakeLayout, stamp)
	return at.Add(-vgpuHandshakeLead), err
}

// vgpuPlugin refreshes the handshake of every node that registers vGPUs until it is stopped:
// each second for the first two minutes, then every 30 s. The refreshes are what make the
// scheduler see the cards at all: it reads a node's devices when the node changes, but turns
// vGPU sharing on only in its first session, racing the reading of the nodes; a node it read
// before could keep no cards until KWOK's next heartbeat, ten to twenty minutes later, and vGPU
// pods sent there meanwhile would run on no card. Hence the quick start, which `testbed up`
// waits for (waitForVGPUs, bringup.go).
func vgpuPlugin(dir string) error {
	k, err := kubeFromConfig(filepath.Join(dir, "kubeconfig"))
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "vgpu-plugin: refreshing the vGPU handshake of the fake nodes")
	began := time.Now()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	quick := true
	for {
		// An API error is told and retried at the next tick: the plugin lives as long as the
		// testbed does.
		if err := refreshHandshakes(k, time.Now()); err != nil {
			fmt.Fprintf(os.Stderr, "vgpu-plugin: %v\n", err)
		}
		if quick && time.Since(began) > 2*time.Minute {
			ticker.Reset(30 * time.Second)
			quick = false
		}
		<-ticker.C
	}
}

func refreshHandshakes(k *kube, now time.Time) error {
	var nodes struct {
		Items []struct {
			Metadata struct {
				Name        string            `json:"name"`
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := k.get("/api/v1/nodes", &nodes); err != nil {
		return err
	}
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"annotations": map[string]string{vgpuHandshakeAnnotation: vgpuHandshake(now)}},
	})
	if err != nil {
		return err
	}
	for _, node := range nodes.Items {
		if _, ok := node.Metadata.Annotations[vgpuRegisterAnnotation]; !ok {
			continue
		}
		path := "/api/v1/nodes/" + node.Metadata.Name
		if err := k.mergePatch(path, patch); err != nil {
			return err
		}
	}
	return nil
}

// kubeFromConfig reads the testbed's own kubeconfig (writeKubeconfig) back.
func kubeFromConfig(path string) (*kube, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var config struct {
		Clusters []struct {
			Cluster struct {
				Server string `json:"server"`
				CA     []byte `json:"certificate-authority-data"`
			} `json:"cluster"`
		} `json:"clusters"`
		Users []struct {
			User struct {
				Token string `json:"token"`
			} `json:"user"`
		} `json:"users"`
	}
	if err := yaml.Unmarshal(data, &config); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(config.Clusters) == 0 || len(config.Users) == 0 {
		return nil, fmt.Errorf("%s: no cluster or user", path)
	}
	return newKube(config.Clusters[0].Cluster.Server, config.Users[0].User.Token, config.Clusters[0].Cluster.CA), nil
}
