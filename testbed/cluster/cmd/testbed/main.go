// Command testbed runs a real Kubernetes control plane with Volcano and fake GPU nodes on one
// machine, for Tephra's tests and demos: etcd, kube-apiserver, kube-controller-manager (garbage
// collector, namespaces, the pod garbage collector, and the persistent-volume binder, protection
// and ephemeral-volume controllers), Volcano's controller-manager and scheduler, KWOK, the fake vGPU device plugin,
// a provisioner for the default StorageClass "standard" (testbed.tephra.dev/hostpath:
// directories under DIR/volumes), and the pods' logs (DIR/logs/pods/NS/POD/CONTAINER.log, served
// through the logs API; see podlogs.go), and the kubelet's hold on pods whose Secrets or
// ConfigMaps are missing (podconfig.go). It also creates the CSIDriver ru.yandex.s3.csi, for
// static S3 volumes. With --metrics, it also runs a fake dcgm-exporter serving GPU metrics for
// the pods that hold GPUs, and a Prometheus scraping it each second, whose URL it writes to
// DIR/prometheus-url.
//
//	testbed up DIR [flags]           start (or find running) a cluster with its state in DIR
//	testbed down DIR                 stop everything started for DIR
//	testbed status DIR               say what runs
//	testbed vgpu-plugin DIR          the fake vGPU device plugin (up starts it)
//	testbed storage-provisioner DIR  the default StorageClass's provisioner (up starts it)
//	testbed pod-config DIR           holds pods whose Secrets or ConfigMaps are missing, as a
//	                                 kubelet does (up starts it; see podconfig.go)
//	testbed pod-logs DIR --listen A --kwok B
//	                                 the pods' logs and the nodes' kubelet endpoint (up starts it)
//	testbed dcgm-exporter --kubeconfig K [--addr HOST:PORT]
//	                                 the fake dcgm-exporter (up --metrics starts it)
//
// Normally called through testbed/run, which builds the binaries first.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
)

func usage() {
	fmt.Fprintln(os.Stderr, `usage: testbed up DIR [flags] | testbed down DIR | testbed status DIR

up flags:`)
	upFlags(new(upOptions)).PrintDefaults()
}

type upOptions struct {
	bin        string
	volcanoDir string
	kwokDir    string
	nodes      nodeShape
	pools      string
	taints     string
	metrics    bool
}

func upFlags(o *upOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("up", flag.ContinueOnError)
	fs.StringVar(&o.bin, "bin", os.Getenv("TESTBED_BIN"), "directory with the component binaries")
	fs.StringVar(&o.volcanoDir, "volcano-dir", os.Getenv("TESTBED_VOLCANO_DIR"), "the volcano.sh/volcano module directory (CRDs)")
	fs.StringVar(&o.kwokDir, "kwok-dir", os.Getenv("TESTBED_KWOK_DIR"), "the sigs.k8s.io/kwok module directory (stages)")
	fs.IntVar(&o.nodes.count, "nodes", 4, "number of fake GPU nodes")
	fs.IntVar(&o.nodes.gpus, "gpus", 8, "nvidia.com/gpu per node")
	fs.IntVar(&o.nodes.vgpuSplit, "vgpu-split", 10, "vGPUs each GPU is shared by (volcano.sh/vgpu-number per GPU); 0 registers no vGPUs")
	fs.IntVar(&o.nodes.gpuMemory, "gpu-memory", 81920, "MiB of memory per GPU, shared by its vGPUs (volcano.sh/vgpu-memory)")
	fs.StringVar(&o.nodes.cpu, "cpu", "64", "CPU per node")
	fs.StringVar(&o.nodes.memory, "memory", "512Gi", "memory per node")
	fs.IntVar(&o.nodes.pods, "pods", 110, "pods per node (raise it to run thousands of pods on a few fake nodes)")
	fs.StringVar(&o.nodes.poolLabel, "pool-label", "tephra.dev/node-pool", "node label that names a node's pool")
	fs.StringVar(&o.pools, "pools", "", "comma-separated pool names, assigned to the nodes in turn")
	fs.StringVar(&o.taints, "taints", "", "comma-separated taints for every node, key=value:Effect")
	fs.BoolVar(&o.metrics, "metrics", false, "also run the fake dcgm-exporter and a Prometheus scraping it (URL in DIR/prometheus-url)")
	return fs
}

func main() {
	if len(os.Args) < 3 {
		usage()
		os.Exit(2)
	}
	command, dir := os.Args[1], os.Args[2]
	var err error
	switch command {
	case "up":
		var o upOptions
		fs := upFlags(&o)
		if err := fs.Parse(os.Args[3:]); err != nil {
			os.Exit(2)
		}
		for _, p := range strings.Split(o.pools, ",") {
			if p = strings.TrimSpace(p); p != "" {
				o.nodes.pools = append(o.nodes.pools, p)
			}
		}
		for _, t := range strings.Split(o.taints, ",") {
			if t = strings.TrimSpace(t); t != "" {
				if !strings.Contains(t, ":") {
					fmt.Fprintf(os.Stderr, "error: --taints: %q must be key=value:Effect\n", t)
					os.Exit(2)
				}
				o.nodes.taints = append(o.nodes.taints, t)
			}
		}
		if o.bin == "" || o.volcanoDir == "" || o.kwokDir == "" {
			fmt.Fprintln(os.Stderr, "error: --bin, --volcano-dir and --kwok-dir are required (testbed/run sets them)")
			os.Exit(2)
		}
		var kubeconfig string
		kubeconfig, err = up(dir, o)
		if err == nil {
			fmt.Println(kubeconfig)
		}
	case "down":
		err = down(dir)
	case "status":
		err = status(dir)
	case "vgpu-plugin":
		err = vgpuPlugin(dir)
	case "storage-provisioner":
		err = storageProvisioner(dir)
	case "pod-config":
		err = podConfig(dir)
	case "pod-logs":
		err = podLogsServer(dir, os.Args[3:])
	case "dcgm-exporter":
		// Flags only, no DIR: it can serve any cluster's kubeconfig.
		if err = dcgmExporter(os.Args[2:]); errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
	default:
		usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
}
