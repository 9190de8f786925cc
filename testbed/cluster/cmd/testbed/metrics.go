package main

// GPU metrics beside the cluster (up --metrics): the fake dcgm-exporter (dcgm.go) and a real
// Prometheus, built by testbed/build from its own module, scraping it each second. Tests find
// Prometheus through DIR/prometheus-url and query its HTTP API, as Tephra queries a real one.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func prometheusURLPath(dir string) string { return filepath.Join(dir, "prometheus-url") }

func hasComponent(s *state, name string) bool {
	for _, c := range s.Components {
		if c.Name == name {
			return true
		}
	}
	return false
}

// startMetrics starts the exporter and Prometheus, waits until Prometheus has scraped the
// exporter once (so a test's first query sees the pods already running), and writes
// DIR/prometheus-url.
func startMetrics(dir string, s *state, bin string) error {
	if _, err := os.Stat(filepath.Join(bin, "prometheus")); err != nil {
		return fmt.Errorf("--metrics needs prometheus in %s (testbed/build builds it): %w", bin, err)
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	var ports [2]int
	for i := range ports {
		if ports[i], err = freePort(); err != nil {
			return err
		}
	}
	exporter := fmt.Sprintf("127.0.0.1:%d", ports[0])
	if err := start(dir, s, filepath.Dir(exe), "dcgm-exporter", filepath.Base(exe), "dcgm-exporter",
		"--kubeconfig="+s.Kubeconfig, "--addr="+exporter); err != nil {
		return err
	}
	if err := waitFor("dcgm-exporter /metrics", 30*time.Second, func() (bool, error) {
		resp, err := http.Get("http://" + exporter + "/metrics")
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		return resp.StatusCode == 200, fmt.Errorf("status %d", resp.StatusCode)
	}); err != nil {
		return fmt.Errorf("%w\n%s", err, logTail(dir, "dcgm-exporter"))
	}

	// honor_labels keeps the exporter's namespace, pod and container, as the GPU operator's
	// ServiceMonitor does; without it a target's own labels of those names would win.
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
- job_name: dcgm-exporter
  honor_labels: true
  static_configs:
  - targets: ['%s']
`, exporter)
	configPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(configPath, []byte(config), 0o644); err != nil {
		return err
	}
	promURL := fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	if err := start(dir, s, bin, "prometheus", "prometheus",
		"--config.file="+configPath,
		"--storage.tsdb.path="+filepath.Join(dir, "prometheus"),
		// A testbed's history is one test run's: a day keeps a restarted testbed's data small.
		"--storage.tsdb.retention.time=1d",
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", ports[1]),
		"--log.level=warn",
	); err != nil {
		return err
	}
	if err := waitFor("Prometheus to scrape dcgm-exporter", 60*time.Second, func() (bool, error) {
		up, err := promInstant(promURL, `up{job="dcgm-exporter"}`)
		return up == "1", err
	}); err != nil {
		return fmt.Errorf("%w\n%s", err, logTail(dir, "prometheus"))
	}
	s.Prometheus, s.DCGMExporter = promURL, "http://"+exporter+"/metrics"
	if err := s.save(dir); err != nil {
		return err
	}
	// Written last and whole, so a test that finds the file finds a Prometheus ready.
	tmp := prometheusURLPath(dir) + ".tmp"
	if err := os.WriteFile(tmp, []byte(promURL+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, prometheusURLPath(dir))
}

// promInstant is the value of an instant query's first sample, "" when it has none.
func promInstant(promURL, query string) (string, error) {
	resp, err := http.Get(promURL + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var answer struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		return "", fmt.Errorf("status %d: %w", resp.StatusCode, err)
	}
	if answer.Status != "success" {
		return "", fmt.Errorf("%s: %s", answer.Status, answer.Error)
	}
	if len(answer.Data.Result) == 0 {
		return "", fmt.Errorf("no sample yet")
	}
	value, _ := answer.Data.Result[0].Value[1].(string)
	return strings.TrimSpace(value), nil
}
