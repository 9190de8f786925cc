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
	if v, ok := query["previous"]; ok && len(v) > 0 && flagValue(v[0]) {
		if _, err := os.Stat(c.previousFile(key, container)); err != nil {
			// The kubelet's words; KWOK's would name the file.
			http.Error(w, fmt.Sprintf("previous terminated container %q in pod %q not found", container, r.PathValue("pod")), http.StatusBadRequest)
			return
		}
	}
	previous := len(query["previous"]) > 0 && flagValue(query["previous"][0])
	if s, ok := c.pod(key).status(container); ok && s.State.Waiting != nil && !previous {
		// A container that never started has no log: the kubelet's words for it.
		http.Error(w, fmt.Sprintf("container %q in pod %q is waiting to start: %s", container, r.PathValue("pod"), waitingWhy(s.State.Waiting.Reason)), http.StatusBadRequest)
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
	var resp *http.Response
	for {
		req, err := http.NewRequestWithContext(ctx, "GET", target.String(), nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		resp, err = http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		if resp.StatusCode == http.StatusOK || !time.Now().Before(deadline) {
			break
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		// KWOK has not seen the Logs object yet.
		if !strings.Contains(string(body), "no logs found") {
			copyContentType(w, resp)
			w.WriteHeader(resp.StatusCode)
			_, _ = w.Write(body)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	defer resp.Body.Close()

	if follow {
		stream := key + "/" + container
		c.mu.Lock()
		if c.follows[stream] == nil {
			c.follows[stream] = map[*context.CancelFunc]bool{}
		}
		c.follows[stream][&cancel] = true
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			delete(c.follows[stream], &cancel)
			if len(c.follows[stream]) == 0 {
				delete(c.follows, stream)
			}
			c.mu.Unlock()
		}()
		// End the stream once the container has ended, after its last lines (a restart the
		// writer has not seen yet ends it at once).
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
					cancel()
					return
				}
				if p.ended(container) {
					select {
					case <-ctx.Done():
					case <-time.After(followGrace):
						cancel()
					}
					return
				}
			}
		}()
	}
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
