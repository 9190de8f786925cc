package main

// Just enough of the Kubernetes API for bootstrapping: create objects from YAML or JSON, read
// them, and wait for conditions. The testbed avoids client-go so the launcher builds in seconds.

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

type kube struct {
	server string
	token  string
	http   *http.Client
}

func newKube(server, token string, caPEM []byte) *kube {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	return &kube{
		server: server,
		token:  token,
		http: &http.Client{
			Timeout:   30 * time.Second,
			Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		},
	}
}

func (k *kube) do(method, path string, body []byte, contentType string) (int, []byte, error) {
	req, err := http.NewRequest(method, k.server+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+k.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := k.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

func (k *kube) get(path string, into any) error {
	code, body, err := k.do("GET", path, nil, "")
	if err != nil {
		return err
	}
	if code != 200 {
		return fmt.Errorf("GET %s: %d %s", path, code, strings.TrimSpace(string(body)))
	}
	return json.Unmarshal(body, into)
}

// mergePatch applies a JSON merge patch to the object at path.
func (k *kube) mergePatch(path string, patch []byte) error {
	code, body, err := k.do("PATCH", path, patch, "application/merge-patch+json")
	if err != nil {
		return err
	}
	if code != 200 {
		return fmt.Errorf("PATCH %s: %d %s", path, code, strings.TrimSpace(string(body)))
	}
	return nil
}

// resourcePath is where objects of this apiVersion/kind live. Only the kinds the testbed
// creates are known.
func resourcePath(apiVersion, kind, namespace string) (string, error) {
	plural := map[string]string{
		"CustomResourceDefinition":         "customresourcedefinitions",
		"Node":                             "nodes",
		"Namespace":                        "namespaces",
		"Queue":                            "queues",
		"PriorityClass":                    "priorityclasses",
		"StorageClass":                     "storageclasses",
		"CSIDriver":                        "csidrivers",
		"CSINode":                          "csinodes",
		"ValidatingAdmissionPolicy":        "validatingadmissionpolicies",
		"ValidatingAdmissionPolicyBinding": "validatingadmissionpolicybindings",
	}[kind]
	if plural == "" {
		return "", fmt.Errorf("the testbed does not know where %s objects live", kind)
	}
	prefix := "/apis/" + apiVersion
	if apiVersion == "v1" {
		prefix = "/api/v1"
	}
	if namespace != "" {
		return fmt.Sprintf("%s/namespaces/%s/%s", prefix, namespace, plural), nil
	}
	return prefix + "/" + plural, nil
}

// create creates every document in a YAML or JSON stream; objects that already exist are left
// as they are (the testbed may be brought up on an existing state directory).
func (k *kube) create(manifest []byte) error {
	for _, doc := range splitYAML(manifest) {
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return err
		}
		var meta struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(js, &meta); err != nil {
			return err
		}
		if meta.Kind == "" {
			continue
		}
		path, err := resourcePath(meta.APIVersion, meta.Kind, meta.Metadata.Namespace)
		if err != nil {
			return err
		}
		code, body, err := k.do("POST", path, js, "application/json")
		if err != nil {
			return err
		}
		if code != 201 && code != 200 && code != 409 {
			return fmt.Errorf("creating %s %s: %d %s", meta.Kind, meta.Metadata.Name, code, strings.TrimSpace(string(body)))
		}
	}
	return nil
}

func splitYAML(stream []byte) [][]byte {
	var docs [][]byte
	for _, part := range strings.Split("\n"+string(stream), "\n---") {
		if strings.TrimSpace(part) != "" {
			docs = append(docs, []byte(part))
		}
	}
	return docs
}

// waitFor polls check until it returns true, or fails with what after the timeout.
func waitFor(what string, timeout time.Duration, check func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		ok, err := check()
		if ok {
			return nil
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	if last != nil {
		return fmt.Errorf("timed out after %s waiting for %s: %v", timeout, what, last)
	}
	return fmt.Errorf("timed out after %s waiting for %s", timeout, what)
}

type condition struct {
	Type   string `json:"type"`
	Status string `json:"status"`
}

func hasCondition(conditions []condition, kind string) bool {
	for _, c := range conditions {
		if c.Type == kind && c.Status == "True" {
			return true
		}
	}
	return false
}
