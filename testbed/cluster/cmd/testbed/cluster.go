package main

// Starting, finding and stopping the components of one testbed. Everything a testbed owns lives
// in its directory: state, logs, credentials and the kubeconfig, so several can run at once.

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

type component struct {
	Name string `json:"name"`
	Pid  int    `json:"pid"`
	// Binary is checked against /proc before signalling, so a recycled pid is never killed.
	Binary string `json:"binary"`
}

type state struct {
	APIServer  string `json:"apiServer"`
	Kubeconfig string `json:"kubeconfig"`
	// Set while the metrics (up --metrics) run.
	Prometheus   string      `json:"prometheus,omitempty"`
	DCGMExporter string      `json:"dcgmExporter,omitempty"`
	Components   []component `json:"components"`
}

func statePath(dir string) string { return filepath.Join(dir, "testbed.json") }

func readState(dir string) (*state, error) {
	data, err := os.ReadFile(statePath(dir))
	if err != nil {
		return nil, err
	}
	var s state
	return &s, json.Unmarshal(data, &s)
}

func (s *state) save(dir string) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := statePath(dir) + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, statePath(dir))
}

func alive(c component) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c.Pid))
	if err != nil {
		return false
	}
	return strings.Contains(string(cmdline), c.Binary)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start launches a component in its own session (so it outlives `testbed up`) with its output
// in DIR/logs/<name>.log, and records it in the state before anything can fail.
func start(dir string, s *state, bin, name, binary string, args ...string) error {
	logs := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return err
	}
	log, err := os.OpenFile(filepath.Join(logs, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	path := filepath.Join(bin, binary)
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Dir = dir
	cmd.Env = outsideCluster(os.Environ())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	s.Components = append(s.Components, component{Name: name, Pid: cmd.Process.Pid, Binary: path})
	// The child is reaped by init once we exit; release it so we do not hold it.
	_ = cmd.Process.Release()
	return s.save(dir)
}

// outsideCluster drops the variables that tell a process it runs in a Kubernetes pod. The
// components are given the testbed's kubeconfig, but Volcano's device sharing reaches the API
// through an in-cluster client only: run in a pod (as CI may), it would read and patch the
// outer cluster. Without them it has no client, which the testbed's vGPU nodes allow for (see
// vgpuHandshake).
func outsideCluster(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "KUBERNETES_SERVICE_") {
			out = append(out, kv)
		}
	}
	return out
}

func logSize(dir, name string) int64 {
	info, err := os.Stat(filepath.Join(dir, "logs", name+".log"))
	if err != nil {
		return 0
	}
	return info.Size()
}

// logSince is a component's log from offset on.
func logSince(dir, name string, offset int64) string {
	data, _ := os.ReadFile(filepath.Join(dir, "logs", name+".log"))
	if offset > int64(len(data)) {
		return ""
	}
	return string(data[offset:])
}

func logTail(dir, name string) string {
	data, _ := os.ReadFile(filepath.Join(dir, "logs", name+".log"))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n")
}

func up(dir string, o upOptions) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if s, err := readState(dir); err == nil {
		running := len(s.Components) > 0
		for _, c := range s.Components {
			running = running && alive(c)
		}
		if running {
			fmt.Fprintf(os.Stderr, "testbed already running in %s\n", dir)
			// Asked for now, the metrics join the running testbed, and go with it at down.
			if o.metrics && !hasComponent(s, "prometheus") {
				fmt.Fprintln(os.Stderr, "starting the GPU metrics (dcgm-exporter, Prometheus)")
				if err := startMetrics(dir, s, o.bin); err != nil {
					return "", err
				}
			}
			return s.Kubeconfig, nil
		}
		// A partial or dead testbed: clear it and start over.
		_ = down(dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	s := &state{}
	kubeconfig, err := bringUp(dir, s, o)
	if err != nil {
		_ = down(dir)
		return "", err
	}
	return kubeconfig, nil
}

func writeKubeconfig(path, server string, creds *credentials) error {
	config := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: testbed
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: admin
  user:
    token: %s
contexts:
- name: testbed
  context:
    cluster: testbed
    user: admin
current-context: testbed
`, server, base64.StdEncoding.EncodeToString(creds.caCertPEM), creds.token)
	return os.WriteFile(path, []byte(config), 0o600)
}

// down stops the components in reverse order: SIGTERM, then SIGKILL after ten seconds.
func down(dir string) error {
	s, err := readState(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	// First, so no test takes a Prometheus about to stop for a live one.
	if err := os.Remove(prometheusURLPath(dir)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for i := len(s.Components) - 1; i >= 0; i-- {
		c := s.Components[i]
		if !alive(c) {
			continue
		}
		_ = syscall.Kill(c.Pid, syscall.SIGTERM)
		deadline := time.Now().Add(10 * time.Second)
		for alive(c) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(c) {
			_ = syscall.Kill(c.Pid, syscall.SIGKILL)
		}
	}
	s.Components, s.Prometheus, s.DCGMExporter = nil, "", ""
	return s.save(dir)
}

func status(dir string) error {
	s, err := readState(dir)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Printf("no testbed in %s\n", dir)
		return nil
	}
	if err != nil {
		return err
	}
	if len(s.Components) == 0 {
		fmt.Printf("testbed in %s is stopped\n", dir)
		return nil
	}
	fmt.Printf("api server %s\nkubeconfig %s\n", s.APIServer, s.Kubeconfig)
	if s.Prometheus != "" {
		fmt.Printf("prometheus %s\ndcgm-exporter %s\n", s.Prometheus, s.DCGMExporter)
	}
	for _, c := range s.Components {
		state := "running"
		if !alive(c) {
			state = "NOT RUNNING"
		}
		fmt.Printf("%-24s pid %-8d %s\n", c.Name, c.Pid, state)
	}
	return nil
}
