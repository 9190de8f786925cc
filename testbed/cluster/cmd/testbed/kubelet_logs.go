package main

// The kubelet endpoint of the fake nodes: container logs from KWOK's reader over the files
// podlogs.go writes, follow streams ended as a kubelet ends them, anything else passed on to KWOK.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// serve is the kubelet endpoint of every fake node: container logs as described at the top,
// anything else passed on to KWOK as it is.
func (c *podLogs) serve(o podLogsOptions, pki string) error {
	kwok := &url.URL{Scheme: "http", Host: o.kwok}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /containerLogs/{namespace}/{pod}/{container}", func(w http.ResponseWriter, r *http.Request) {
		c.containerLogs(w, r, kwok)
	})
	mux.Handle("/", httputil.NewSingleHostReverseProxy(kwok))
	server := &http.Server{Addr: o.listen, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return server.ListenAndServeTLS(filepath.Join(pki, "kubelet.crt"), filepath.Join(pki, "kubelet.key"))
}

func (c *podLogs) pod(key string) *logPod {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pods[key]
}

// isReady says whether the pod's files and Logs object are made (KWOK may not have seen the
// object yet).
func (c *podLogs) isReady(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pods[key]
	return p != nil && c.ready[key] == p.Metadata.UID
}

func (c *podLogs) containerLogs(w http.ResponseWriter, r *http.Request, kwok *url.URL) {
	key := r.PathValue("namespace") + "/" + r.PathValue("pod")
	container := r.PathValue("container")
	// A client that has just seen the pod bound or Running may ask before the writer has caught
	// up, or before KWOK has seen the Logs object: it waits a little, as for a kubelet that is
	// starting the container.
	deadline := time.Now().Add(5 * time.Second)
	c.wake()
	for !c.isReady(key) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	query := r.URL.Query()
	previous := len(query["previous"]) > 0 && flagValue(query["previous"][0])
	if why := c.noLog(key, container, r.PathValue("pod"), previous); why != "" {
		http.Error(w, why, http.StatusBadRequest)
		return
	}
	follow := false
	if v, ok := query["follow"]; ok && len(v) > 0 {
		follow = flagValue(v[0])
	}
	p := c.pod(key)
	if follow && p.ended(container) {
		query.Set("follow", "false")
		follow = false
	}
	restarts := -1
	if s, ok := p.status(container); ok {
		restarts = s.RestartCount
	}

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	target := *kwok
	target.Path, target.RawQuery = r.URL.Path, query.Encode()
	resp := askKWOK(ctx, w, target.String(), deadline)
	if resp == nil {
		return
	}
	defer resp.Body.Close()
	if follow {
		defer c.followUntilEnd(ctx, &cancel, key, container, restarts)()
	}
	relay(w, resp)
}

// noLog is the kubelet's answer for a container that has no log to give, or "" when it has one.
func (c *podLogs) noLog(key, container, pod string, previous bool) string {
	if previous {
		if _, err := os.Stat(c.previousFile(key, container)); err != nil {
			// The kubelet's words; KWOK's would name the file.
			return fmt.Sprintf("previous terminated container %q in pod %q not found", container, pod)
		}
		return ""
	}
	if s, ok := c.pod(key).status(container); ok && s.State.Waiting != nil {
		// A container that never started has no log: the kubelet's words for it.
		return fmt.Sprintf("container %q in pod %q is waiting to start: %s", container, pod, waitingWhy(s.State.Waiting.Reason))
	}
	return ""
}

// askKWOK asks KWOK's server for the log until it has the Logs object or the deadline passes.
// Its answer, or nil when the client has been answered already (an error, or KWOK's refusal).
func askKWOK(ctx context.Context, w http.ResponseWriter, target string, deadline time.Time) *http.Response {
	for {
		req, err := http.NewRequestWithContext(ctx, "GET", target, nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return nil
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return nil
		}
		if resp.StatusCode == http.StatusOK || !time.Now().Before(deadline) {
			return resp
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		// KWOK has not seen the Logs object yet.
		if !strings.Contains(string(body), "no logs found") {
			copyContentType(w, resp)
			w.WriteHeader(resp.StatusCode)
			_, _ = w.Write(body)
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// followUntilEnd registers a followed stream, so that a restart the writer sees ends it, and
// ends it once the container has ended, after its last lines (a restart the writer has not seen
// yet ends it at once). The function it returns unregisters the stream.
func (c *podLogs) followUntilEnd(ctx context.Context, cancel *context.CancelFunc, key, container string, restarts int) func() {
	stream := key + "/" + container
	c.mu.Lock()
	if c.follows[stream] == nil {
		c.follows[stream] = map[*context.CancelFunc]bool{}
	}
	c.follows[stream][cancel] = true
	c.mu.Unlock()
	go func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			p := c.pod(key)
			if s, ok := p.status(container); ok && restarts >= 0 && s.RestartCount != restarts {
				(*cancel)()
				return
			}
			if p.ended(container) {
				select {
				case <-ctx.Done():
				case <-time.After(followGrace):
					(*cancel)()
				}
				return
			}
		}
	}()
	return func() {
		c.mu.Lock()
		delete(c.follows[stream], cancel)
		if len(c.follows[stream]) == 0 {
			delete(c.follows, stream)
		}
		c.mu.Unlock()
	}
}

// relay copies KWOK's answer to the client as it comes.
func relay(w http.ResponseWriter, resp *http.Response) {
	copyContentType(w, resp)
	w.WriteHeader(resp.StatusCode)
	flusher, _ := w.(http.Flusher)
	buf := make([]byte, 32*1024)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		if err != nil {
			// The end of the log, the container's end (cancel), or the client gone: in every
			// case the response ends here, complete.
			return
		}
	}
}

func copyContentType(w http.ResponseWriter, resp *http.Response) {
	if t := resp.Header.Get("Content-Type"); t != "" {
		w.Header().Set("Content-Type", t)
	}
}

// pointNodesAtKubelet makes every fake node name 127.0.0.1 and port as its kubelet, as KWOK does
// for the nodes it initializes in this start (--node-ip, --node-port).
func pointNodesAtKubelet(k *kube, port int) error {
	var nodes struct {
		Items []struct {
			Metadata objectMeta `json:"metadata"`
			Status   struct {
				Addresses []struct {
					Type    string `json:"type"`
					Address string `json:"address"`
				} `json:"addresses"`
				DaemonEndpoints struct {
					KubeletEndpoint struct {
						Port int `json:"Port"`
					} `json:"kubeletEndpoint"`
				} `json:"daemonEndpoints"`
			} `json:"status"`
		} `json:"items"`
	}
	if err := k.get("/api/v1/nodes", &nodes); err != nil {
		return err
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{
		"addresses":       []map[string]string{{"type": "InternalIP", "address": "127.0.0.1"}},
		"daemonEndpoints": map[string]any{"kubeletEndpoint": map[string]int{"Port": port}},
	}})
	if err != nil {
		return err
	}
	for _, node := range nodes.Items {
		st := node.Status
		if node.Metadata.Annotations["kwok.x-k8s.io/node"] != "fake" || (st.DaemonEndpoints.KubeletEndpoint.Port == port &&
			len(st.Addresses) == 1 && st.Addresses[0].Type == "InternalIP" && st.Addresses[0].Address == "127.0.0.1") {
			continue
		}
		path := "/api/v1/nodes/" + url.PathEscape(node.Metadata.Name) + "/status"
		if err := k.mergePatch(path, patch); err != nil {
			return err
		}
	}
	return nil
}

// flagValue reads a query flag as the kubelet does: anything but 0 or false is true.
// waitingWhy is how the kubelet says why a container waits to start.
func waitingWhy(reason string) string {
	switch reason {
	case "ErrImagePull", "ImagePullBackOff":
		return "trying and failing to pull image"
	case "":
		return "ContainerCreating"
	default:
		return reason
	}
}

func flagValue(v string) bool { return v != "0" && !strings.EqualFold(v, "false") }
