package main

// Pod logs on the fake nodes, through the real logs API (GET .../pods/POD/log, what kubectl logs
// and kube-rs call). The API server asks a node's kubelet for them, at the node's InternalIP and
// daemonEndpoints port: every fake node names 127.0.0.1 and the port of the pod-logs process
// (kubelet_logs.go), which hands the request on to KWOK's server. KWOK answers /containerLogs
// with the kubelet's own reader (k8s.io/cri-client/pkg/logs: tailLines, follow, timestamps, sinceSeconds,
// sinceTime, limitBytes, previous) over the file that a Logs object (kwok.x-k8s.io/v1alpha1,
// named after the pod) gives for the container.
//
// The pod-logs process makes those files and objects. For every pod bound to a node it writes
// DIR/logs/pods/NS/POD/CONTAINER.log, in the CRI log format a kubelet reads, beginning with
// "tephra-testbed: pod NS/POD container C started", and while the container runs it adds a
// training step ("step 12 loss 0.4312") every second, unless the pod carries logLinesAnnotation
// (its own lines) or logEndlessAnnotation (one line without end).
// A restart (restartCount up) moves the file to CONTAINER.previous.log (previous=true) and starts
// a new one; the pod's deletion removes its directory, and the garbage collector its Logs object.
//
// It also ends follow streams as a kubelet does: KWOK's reader has no container to ask about and
// follows a file until the client hangs up, so a stream of a training that ended would never end.
// Here a follow of a container that has ended is served without follow, and a follow stream is
// closed a moment after its container ends, or at once when it restarts (before its new log
// begins, which KWOK would go on to).

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

const (
	// On a pod or its task template: the lines each container prints after the first line,
	// instead of training steps, newline-separated ("" prints nothing more). A test that writes
	// the log itself sets it so its lines are the only ones. Not under tephra.dev/: Tephra
	// refuses requests that set keys under its own domain.
	logLinesAnnotation = "testbed/log-lines"
	// On a pod or its task template: KiB that each container adds every second to one line that
	// never ends (CRI partial entries, no newline), instead of training steps. Tests of how a
	// reader bounds what it holds set it.
	logEndlessAnnotation = "testbed/log-endless-kib"
	// A CRI runtime splits a long line into partial entries of this size.
	criPartialBytes = 16 * 1024

	logStepInterval = time.Second
	// How long a follow stream goes on after its container ended: KWOK sends what was written
	// last within milliseconds (it watches the file), and at worst at its next check, a second on.
	followGrace = 1500 * time.Millisecond
)

// podLogsDir is where the pods' logs are: NS/POD/CONTAINER.log under it.
func podLogsDir(dir string) string { return filepath.Join(dir, "logs", "pods") }

type podLogsOptions struct {
	listen string // the kubelet endpoint the nodes name, host:port
	kwok   string // KWOK's server, host:port (plain HTTP)
}

type logPod struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		InitContainers []namedContainer `json:"initContainers"`
		Containers     []namedContainer `json:"containers"`
	} `json:"spec"`
	Status struct {
		Phase                 string            `json:"phase"`
		InitContainerStatuses []containerStatus `json:"initContainerStatuses"`
		ContainerStatuses     []containerStatus `json:"containerStatuses"`
	} `json:"status"`
}

type namedContainer struct {
	Name string `json:"name"`
}

type containerStatus struct {
	Name         string `json:"name"`
	RestartCount int    `json:"restartCount"`
	State        struct {
		Running    *struct{} `json:"running"`
		Terminated *struct{} `json:"terminated"`
		Waiting    *struct {
			Reason string `json:"reason"`
		} `json:"waiting"`
	} `json:"state"`
}

func (p *logPod) key() string { return p.Metadata.Namespace + "/" + p.Metadata.Name }

func (p *logPod) containers() []string {
	var names []string
	for _, c := range append(append([]namedContainer{}, p.Spec.InitContainers...), p.Spec.Containers...) {
		names = append(names, c.Name)
	}
	return names
}

func (p *logPod) status(container string) (containerStatus, bool) {
	if p == nil {
		return containerStatus{}, false
	}
	for _, s := range append(append([]containerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		if s.Name == container {
			return s, true
		}
	}
	return containerStatus{}, false
}

// ended says whether a container will write no more: its pod is gone or finished, or it
// terminated.
func (p *logPod) ended(container string) bool {
	if p == nil || p.Status.Phase == "Succeeded" || p.Status.Phase == "Failed" {
		return true
	}
	s, ok := p.status(container)
	return ok && s.State.Terminated != nil && s.State.Running == nil
}

// podLogs is the pod-logs process: the pods as the watch last saw them, and what the writer has
// made for them.
type podLogs struct {
	root string
	k    *kube
	// Watches need a client without the 30 s limit of k's.
	watchClient *http.Client
	kick        chan struct{}

	mu   sync.Mutex
	pods map[string]*logPod // by NS/POD; replaced, never changed in place
	// The pods (by NS/POD) whose files and Logs object are made, with the uid they are for.
	ready map[string]string
	// Set by a new list: the writer then removes what pods gone meanwhile left on disk.
	sweep bool
	// The follow streams being served, by NS/POD/CONTAINER, with what ends each.
	follows map[string]map[*context.CancelFunc]bool

	// The writer's own: the pods' logs, and the last error told for each pod (told once).
	logs    map[string]*podLog
	lastErr map[string]string
}

type podLog struct {
	uid        string
	object     bool // the Logs object exists
	containers map[string]*containerLog
}

type containerLog struct {
	steps    int
	restarts int
	lastStep time.Time
}

func podLogsServer(dir string, args []string) error {
	var o podLogsOptions
	fs := flag.NewFlagSet("pod-logs", flag.ContinueOnError)
	fs.StringVar(&o.listen, "listen", "", "address of the fake nodes' kubelet endpoint (TLS)")
	fs.StringVar(&o.kwok, "kwok", "", "address of KWOK's server")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.listen == "" || o.kwok == "" {
		return errors.New("pod-logs: --listen and --kwok are required")
	}
	k, err := kubeFromConfig(filepath.Join(dir, "kubeconfig"))
	if err != nil {
		return err
	}
	c := &podLogs{
		root:        podLogsDir(dir),
		k:           k,
		watchClient: &http.Client{Transport: k.http.Transport},
		kick:        make(chan struct{}, 1),
		pods:        map[string]*logPod{},
		ready:       map[string]string{},
		follows:     map[string]map[*context.CancelFunc]bool{},
		logs:        map[string]*podLog{},
		lastErr:     map[string]string{},
	}
	if err := os.MkdirAll(c.root, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "pod-logs: writing pod logs under %s, serving them at %s through KWOK at %s\n", c.root, o.listen, o.kwok)
	go c.watchPods()
	go c.write()
	return c.serve(o, filepath.Join(dir, "pki"))
}

func (c *podLogs) wake() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// The pods bound to a node; pods waiting for the scheduler have no logs.
const boundPods = "/api/v1/pods?fieldSelector=" + "spec.nodeName%21%3D"

// watchPods keeps c.pods current: a list, then a watch from it, again from the start when the
// watch fails (its resource version expired, the API restarted).
func (c *podLogs) watchPods() {
	for {
		rv, err := c.list()
		for err == nil {
			rv, err = c.watch(rv)
		}
		fmt.Fprintf(os.Stderr, "pod-logs: watching pods: %v\n", err)
		time.Sleep(time.Second)
	}
}

func (c *podLogs) list() (string, error) {
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Items []*logPod `json:"items"`
	}
	if err := c.k.get(boundPods, &list); err != nil {
		return "", err
	}
	pods := map[string]*logPod{}
	for _, p := range list.Items {
		pods[p.key()] = p
	}
	c.mu.Lock()
	c.pods, c.sweep = pods, true
	c.mu.Unlock()
	c.wake()
	return list.Metadata.ResourceVersion, nil
}

// watch applies the pods' changes from resource version rv on until the API ends the watch
// (timeoutSeconds), and returns the version reached; an error means listing again.
func (c *podLogs) watch(rv string) (string, error) {
	req, err := http.NewRequest("GET", c.k.server+boundPods+"&watch=1&allowWatchBookmarks=true&timeoutSeconds=300&resourceVersion="+url.QueryEscape(rv), nil)
	if err != nil {
		return rv, err
	}
	req.Header.Set("Authorization", "Bearer "+c.k.token)
	resp, err := c.watchClient.Do(req)
	if err != nil {
		return rv, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		body, _ := io.ReadAll(resp.Body)
		return rv, fmt.Errorf("watch: %d %s", resp.StatusCode, strings.TrimSpace(string(body)))
	}
	dec := json.NewDecoder(resp.Body)
	for {
		var event struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := dec.Decode(&event); err != nil {
			if errors.Is(err, io.EOF) {
				return rv, nil
			}
			return rv, err
		}
		if event.Type == "ERROR" {
			return rv, fmt.Errorf("watch: %s", event.Object)
		}
		var p logPod
		if err := json.Unmarshal(event.Object, &p); err != nil {
			return rv, err
		}
		var meta struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		}
		_ = json.Unmarshal(event.Object, &meta)
		rv = meta.Metadata.ResourceVersion
		c.mu.Lock()
		switch event.Type {
		case "ADDED", "MODIFIED":
			c.pods[p.key()] = &p
		case "DELETED":
			delete(c.pods, p.key())
		}
		c.mu.Unlock()
		if event.Type != "BOOKMARK" {
			c.wake()
		}
	}
}
