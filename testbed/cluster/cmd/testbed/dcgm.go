package main

// A stand-in for NVIDIA's dcgm-exporter on the fake GPU nodes: what a real one, run as the GPU
// operator runs it (with its Kubernetes pod mapping), would serve for the pods that hold GPUs,
// so Tephra's GPU-metric queries can be tested against a real Prometheus. KWOK's nodes have no
// GPUs to read, so the figures are made up, or set by the test through a container's env:
//
//	TESTBED_GPU_UTIL=N         DCGM_FI_DEV_GPU_UTIL is N on each of the container's GPUs
//	TESTBED_GPU_MEMORY_MIB=N   DCGM_FI_DEV_FB_USED is N (and FB_FREE the rest of the card)
//
// (literal values only: the exporter reads the pod's spec, and resolves no valueFrom).
//
// The text mimics dcgm-exporter 4.5.x (release 4.5.3-4.8.2, etc/default-counters.csv and its
// render template): HELP and TYPE as there, and labels in its order, gpu, UUID, pci_bus_id,
// device, modelName, Hostname, then the DCGM_FI_DRIVER_VERSION label, then container, namespace
// and pod. As with the real exporter's pod mapping, a GPU no Running pod holds has no series
// here (the real one would serve it without pod labels).

import (
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"math"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	gpuResource        = "nvidia.com/gpu"
	gpuUtilEnv         = "TESTBED_GPU_UTIL"
	gpuMemoryEnv       = "TESTBED_GPU_MEMORY_MIB"
	dcgmDriverVersion  = "570.172.08"
	defaultGPUMemory   = 81920
	dcgmUtilPeriod     = 60 * time.Second
	dcgmDefaultAddress = "127.0.0.1:9400"
)

// dcgmFields are the fields served, as dcgm-exporter's default counters describe them.
var dcgmFields = []struct{ name, help string }{
	{"DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %)."},
	{"DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB)."},
	{"DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB)."},
}

func dcgmExporter(args []string) error {
	fs := flag.NewFlagSet("dcgm-exporter", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "the testbed's kubeconfig (DIR/kubeconfig)")
	addr := fs.String("addr", dcgmDefaultAddress, "address to serve /metrics on")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *kubeconfig == "" {
		return errors.New("dcgm-exporter: --kubeconfig is required")
	}
	k, err := kubeFromConfig(*kubeconfig)
	if err != nil {
		return err
	}
	e := &dcgm{k: k, began: time.Now(), held: map[string]map[string][]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", e.serve)
	fmt.Fprintf(os.Stderr, "dcgm-exporter: serving fake GPU metrics on http://%s/metrics\n", *addr)
	return (&http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}).ListenAndServe()
}

type dcgm struct {
	k     *kube
	began time.Time
	mu    sync.Mutex
	// held is which GPU indices each pod's container holds, by node and then by
	// "<pod uid>/<container>". Kept across scrapes so a pod keeps its cards (and its series
	// their labels) while other pods come and go.
	held map[string]map[string][]int
}

// gpuCard is one GPU of a node, as its series name it.
type gpuCard struct {
	index  int
	uuid   string
	model  string
	memory int // MiB
}

type gpuHolder struct {
	key, namespace, pod, container, node string
	created                              string
	gpus                                 int
	env                                  map[string]string
}

type dcgmSample struct {
	card             gpuCard
	holder           *gpuHolder
	util, used, free float64
}

func (e *dcgm) serve(w http.ResponseWriter, r *http.Request) {
	samples, err := e.collect(time.Now())
	if err != nil {
		// A failed scrape (up == 0) rather than an empty one, which would read as no GPU in use.
		fmt.Fprintf(os.Stderr, "dcgm-exporter: %v\n", err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	var out strings.Builder
	for _, f := range dcgmFields {
		fmt.Fprintf(&out, "# HELP %s %s\n# TYPE %s gauge\n", f.name, f.help, f.name)
		for _, s := range samples {
			value := s.util
			switch f.name {
			case "DCGM_FI_DEV_FB_FREE":
				value = s.free
			case "DCGM_FI_DEV_FB_USED":
				value = s.used
			}
			fmt.Fprintf(&out, "%s{gpu=\"%d\",UUID=%q,pci_bus_id=\"00000000:%02X:00.0\",device=\"nvidia%d\",modelName=%q,Hostname=%q,DCGM_FI_DRIVER_VERSION=%q,container=%q,namespace=%q,pod=%q} %s\n",
				f.name, s.card.index, s.card.uuid, 0x07+s.card.index, s.card.index, s.card.model, s.holder.node,
				dcgmDriverVersion, s.holder.container, s.holder.namespace, s.holder.pod,
				strconv.FormatFloat(value, 'f', -1, 64))
		}
	}
	_, _ = w.Write([]byte(out.String()))
}

// collect reads the Running pods that hold GPUs and the nodes they run on, and makes up each
// card's figures at now.
func (e *dcgm) collect(now time.Time) ([]dcgmSample, error) {
	holders, err := e.gpuHolders()
	if err != nil {
		return nil, err
	}
	cards, err := e.nodeCards()
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.assign(holders, cards)
	var samples []dcgmSample
	for i := range holders {
		h := &holders[i]
		for _, index := range e.held[h.node][h.key] {
			card := cardOf(cards[h.node], h.node, index)
			util, used := e.figures(h, card, now)
			samples = append(samples, dcgmSample{card: card, holder: h, util: util, used: used,
				free: math.Max(0, float64(card.memory)-used)})
		}
	}
	sort.Slice(samples, func(i, j int) bool {
		a, b := samples[i], samples[j]
		if a.holder.node != b.holder.node {
			return a.holder.node < b.holder.node
		}
		return a.card.index < b.card.index
	})
	return samples, nil
}

// figures are a card's utilisation (percent) and memory used (MiB): what the container's env
// asks for, or else a busy training job's, the utilisation between 55 and 95 % on a minute's
// wave (each card in its own phase) and memory steady at 70 % of the card.
// A value the env gives that is not a number is ignored, as if not given.
func (e *dcgm) figures(h *gpuHolder, card gpuCard, now time.Time) (util, used float64) {
	phase := float64(crc32.ChecksumIEEE([]byte(card.uuid))%1000) / 1000
	t := now.Sub(e.began).Seconds() / dcgmUtilPeriod.Seconds()
	// Whole percents, as DCGM reports them.
	util = math.Round(75 + 20*math.Sin(2*math.Pi*(t+phase)))
	if f, ok := envNumber(h.env, gpuUtilEnv); ok {
		util = f
	}
	used = math.Round(0.7 * float64(card.memory))
	if f, ok := envNumber(h.env, gpuMemoryEnv); ok {
		used = f
	}
	return util, used
}

func envNumber(env map[string]string, name string) (float64, bool) {
	v, ok := env[name]
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	return f, err == nil && f >= 0 && !math.IsInf(f, 0)
}

// assign gives each holder new to the exporter the lowest free cards of its node (first come,
// first served, in creation order), and forgets those that are gone.
func (e *dcgm) assign(holders []gpuHolder, cards map[string][]gpuCard) {
	present := map[string]map[string]bool{}
	for _, h := range holders {
		if present[h.node] == nil {
			present[h.node] = map[string]bool{}
		}
		present[h.node][h.key] = true
	}
	for node, byKey := range e.held {
		for key := range byKey {
			if !present[node][key] {
				delete(byKey, key)
			}
		}
		if len(byKey) == 0 {
			delete(e.held, node)
		}
	}
	order := make([]*gpuHolder, 0, len(holders))
	for i := range holders {
		order = append(order, &holders[i])
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].created != order[j].created {
			return order[i].created < order[j].created
		}
		return order[i].key < order[j].key
	})
	for _, h := range order {
		if e.held[h.node] == nil {
			e.held[h.node] = map[string][]int{}
		}
		if _, ok := e.held[h.node][h.key]; ok {
			continue
		}
		taken := map[int]bool{}
		for _, indices := range e.held[h.node] {
			for _, i := range indices {
				taken[i] = true
			}
		}
		// A node overcommitted (which the scheduler should never allow) gets cards past its
		// count rather than two pods on one card.
		var indices []int
		for i := 0; len(indices) < h.gpus; i++ {
			if !taken[i] {
				indices = append(indices, i)
			}
		}
		e.held[h.node][h.key] = indices
	}
}

// gpuHolders are the containers of Running pods that hold nvidia.com/gpu.
func (e *dcgm) gpuHolders() ([]gpuHolder, error) {
	var pods struct {
		Items []struct {
			Metadata struct {
				Name              string `json:"name"`
				Namespace         string `json:"namespace"`
				UID               string `json:"uid"`
				CreationTimestamp string `json:"creationTimestamp"`
			} `json:"metadata"`
			Spec struct {
				NodeName   string `json:"nodeName"`
				Containers []struct {
					Name      string `json:"name"`
					Resources struct {
						Limits   map[string]string `json:"limits"`
						Requests map[string]string `json:"requests"`
					} `json:"resources"`
					Env []struct {
						Name  string `json:"name"`
						Value string `json:"value"`
					} `json:"env"`
				} `json:"containers"`
			} `json:"spec"`
		} `json:"items"`
	}
	if err := e.k.get("/api/v1/pods?fieldSelector="+url.QueryEscape("status.phase=Running"), &pods); err != nil {
		return nil, err
	}
	var holders []gpuHolder
	for _, p := range pods.Items {
		if p.Spec.NodeName == "" {
			continue
		}
		for _, c := range p.Spec.Containers {
			// An extended resource's request, when given, must equal its limit; either says.
			count := c.Resources.Limits[gpuResource]
			if count == "" {
				count = c.Resources.Requests[gpuResource]
			}
			gpus, err := strconv.Atoi(count)
			if err != nil || gpus <= 0 {
				continue
			}
			env := map[string]string{}
			for _, v := range c.Env {
				env[v.Name] = v.Value
			}
			holders = append(holders, gpuHolder{
				key:       p.Metadata.UID + "/" + c.Name,
				namespace: p.Metadata.Namespace, pod: p.Metadata.Name, container: c.Name,
				node: p.Spec.NodeName, created: p.Metadata.CreationTimestamp, gpus: gpus, env: env,
			})
		}
	}
	return holders, nil
}

// nodeCards are each node's GPUs: the cards its vGPU registration lists (so a card has the
// UUID Volcano's vGPU sharing knows it by), or else made up from its name and GPU count.
func (e *dcgm) nodeCards() (map[string][]gpuCard, error) {
	var nodes struct {
		Items []struct {
			Metadata struct {
				Name        string            `json:"name"`
				Labels      map[string]string `json:"labels"`
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
			Status struct {
				Capacity map[string]string `json:"capacity"`
			} `json:"status"`
		} `json:"items"`
	}
	if err := e.k.get("/api/v1/nodes", &nodes); err != nil {
		return nil, err
	}
	cards := map[string][]gpuCard{}
	for _, n := range nodes.Items {
		// GPU feature discovery's label is the product name with dashes for spaces, which the
		// testbed's nodes carry without the vendor.
		model := strings.TrimPrefix(n.Metadata.Labels["nvidia.com/gpu.product"], "NVIDIA-")
		if model == "" {
			model = gpuProduct
		}
		model = "NVIDIA " + model
		if register := n.Metadata.Annotations[vgpuRegisterAnnotation]; register != "" {
			for i, entry := range strings.Split(strings.TrimSuffix(register, ":"), ":") {
				fields := strings.Split(entry, ",")
				if len(fields) < 3 {
					continue
				}
				memory, err := strconv.Atoi(fields[2])
				if err != nil {
					memory = defaultGPUMemory
				}
				cards[n.Metadata.Name] = append(cards[n.Metadata.Name], gpuCard{index: i, uuid: fields[0], model: model, memory: memory})
			}
			continue
		}
		count, _ := strconv.Atoi(n.Status.Capacity[gpuResource])
		for i := 0; i < count; i++ {
			cards[n.Metadata.Name] = append(cards[n.Metadata.Name], cardOf(nil, n.Metadata.Name, i))
		}
	}
	return cards, nil
}

// cardOf is a node's card at index, or one made up for it (the node unknown, or the index past
// its count).
func cardOf(cards []gpuCard, node string, index int) gpuCard {
	if index < len(cards) {
		return cards[index]
	}
	model := "NVIDIA " + gpuProduct
	if len(cards) > 0 {
		model = cards[0].model
	}
	return gpuCard{index: index, model: model, memory: defaultGPUMemory,
		uuid: fmt.Sprintf("GPU-%08x-0000-4000-8000-%012x", crc32.ChecksumIEEE([]byte(node)), index)}
}
