package main

// Starting, finding and stopping the components of one testbed. Everything a testbed owns lives
// in its directory: state, logs, credentials and the kubeconfig, so several can run at once.

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

func bringUp(dir string, s *state, o upOptions) (string, error) {
	began := time.Now()
	step := func(what string) { fmt.Fprintf(os.Stderr, "[%5.1fs] %s\n", time.Since(began).Seconds(), what) }
	creds, err := makeCredentials(dir)
	if err != nil {
		return "", err
	}
	var ports [6]int
	for i := range ports {
		if ports[i], err = freePort(); err != nil {
			return "", err
		}
	}
	etcdPort, peerPort, apiPort, kcmPort := ports[0], ports[1], ports[2], ports[3]
	// KWOK's server, and the fake nodes' kubelet endpoint in front of it (see podlogs.go).
	kwokAddress, kubeletPort := fmt.Sprintf("127.0.0.1:%d", ports[4]), ports[5]

	step("starting etcd")
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	if err := start(dir, s, o.bin, "etcd", "etcd",
		"--name=testbed", "--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=testbed="+peerURL, "--unsafe-no-fsync=true", "--log-level=warn",
	); err != nil {
		return "", err
	}
	if err := waitFor("etcd", 30*time.Second, func() (bool, error) {
		resp, err := http.Get(etcdURL + "/health")
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		return resp.StatusCode == 200, nil
	}); err != nil {
		return "", fmt.Errorf("%w\n%s", err, logTail(dir, "etcd"))
	}

	step("starting kube-apiserver")
	pki := filepath.Join(dir, "pki")
	if err := start(dir, s, o.bin, "kube-apiserver", "kube-apiserver",
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port="+strconv.Itoa(apiPort),
		"--tls-cert-file="+filepath.Join(pki, "apiserver.crt"), "--tls-private-key-file="+filepath.Join(pki, "apiserver.key"),
		"--cert-dir="+pki,
		"--token-auth-file="+filepath.Join(dir, "token.csv"),
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-signing-key-file="+filepath.Join(pki, "sa.key"),
		"--service-account-key-file="+filepath.Join(pki, "sa.key"),
		"--service-cluster-ip-range=10.96.0.0/16",
		// Pod logs come from the nodes' kubelet endpoint, which every fake node puts at its
		// InternalIP, 127.0.0.1 (KWOK adds no Hostname, which would be tried first).
		"--kubelet-preferred-address-types=InternalIP",
		"--kubelet-certificate-authority="+filepath.Join(pki, "ca.crt"),
		// Without a node-lifecycle controller, TaintNodesByCondition would leave every node
		// tainted not-ready; ServiceAccount admission would need the token controllers.
		"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
		"--allow-privileged=true", "--enable-priority-and-fairness=false", "--profiling=false", "--v=1",
	); err != nil {
		return "", err
	}
	server := fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	k := newKube(server, creds.token, creds.caCertPEM)
	if err := waitFor("kube-apiserver /readyz", 120*time.Second, func() (bool, error) {
		code, body, err := k.do("GET", "/readyz", nil, "")
		if err != nil {
			return false, err
		}
		return code == 200, fmt.Errorf("%d %s", code, body)
	}); err != nil {
		return "", fmt.Errorf("%w\n%s", err, logTail(dir, "kube-apiserver"))
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfig(kubeconfig, server, creds); err != nil {
		return "", err
	}
	s.APIServer, s.Kubeconfig = server, kubeconfig
	if err := s.save(dir); err != nil {
		return "", err
	}

	step("installing the Volcano CRDs and KWOK's Logs")
	crdDir := filepath.Join(o.volcanoDir, "config/crd/volcano/bases")
	files, err := filepath.Glob(filepath.Join(crdDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		return "", fmt.Errorf("no CRDs in %s", crdDir)
	}
	// The objects that tell KWOK where each container's log is (see podlogs.go).
	files = append(files, filepath.Join(o.kwokDir, "kustomize/crd/bases/kwok.x-k8s.io_logs.yaml"))
	var crdNames []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		if err := k.create(data); err != nil {
			return "", fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
		// File names are <group>_<plural>.yaml; the CRD is <plural>.<group>.
		group, plural, _ := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".yaml"), "_")
		crdNames = append(crdNames, plural+"."+group)
	}
	for _, name := range crdNames {
		if err := waitFor("CRD "+name+" Established", 60*time.Second, func() (bool, error) {
			var crd struct {
				Status struct{ Conditions []condition } `json:"status"`
			}
			if err := k.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+name, &crd); err != nil {
				return false, err
			}
			return hasCondition(crd.Status.Conditions, "Established"), nil
		}); err != nil {
			return "", err
		}
	}
	if err := k.create([]byte(priorityClasses)); err != nil {
		return "", err
	}
	if err := k.create([]byte(storageObjects)); err != nil {
		return "", err
	}

	step("starting kube-controller-manager and the storage provisioner")
	// Besides the garbage collector and namespaces, the persistent-volume controllers: the
	// binder binds claims to volumes (and asks external provisioners for new ones), the two
	// protection controllers let a volume or claim in use be deleted only once it is not, and
	// the ephemeral-volume controller makes the claims of pods' ephemeral volumes. And the pod
	// garbage collector, which fails and deletes the pods of a node deleted 40 s before (condition
	// DisruptionTarget, reason DeletionByPodGC), as on any cluster.
	if err := start(dir, s, o.bin, "kube-controller-manager", "kube-controller-manager",
		"--kubeconfig="+kubeconfig, "--leader-elect=false",
		"--controllers=garbage-collector-controller,namespace-controller,pod-garbage-collector-controller,"+
			"persistentvolume-binder-controller,persistentvolume-protection-controller,"+
			"persistentvolumeclaim-protection-controller,ephemeral-volume-controller",
		// The binder finishes a binding that lost a race (a claim and its pre-bound volume
		// created together, say) only at its next resync, 15 s by default.
		"--pvclaimbinder-sync-period=1s",
		"--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(kcmPort),
		"--kube-api-qps=100", "--kube-api-burst=200", "--v=1",
	); err != nil {
		return "", err
	}
	// The launcher itself, run on as the provisioner of the default StorageClass (see
	// storageProvisioner).
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if err := start(dir, s, filepath.Dir(exe), "storage-provisioner", filepath.Base(exe), "storage-provisioner", dir); err != nil {
		return "", err
	}

	// The nodes come before Volcano: the scheduler sizes the root queue (the capacity plugin's
	// hierarchy) from the nodes it sees first, and a root sized to one node caps the whole cluster.
	step("starting KWOK and the pod logs, and creating the nodes")
	config, err := kwokConfig(o.kwokDir)
	if err != nil {
		return "", err
	}
	kwokConf := filepath.Join(dir, "kwok.yaml")
	if err := os.WriteFile(kwokConf, []byte(config), 0o644); err != nil {
		return "", err
	}
	// The nodes KWOK initializes name 127.0.0.1 and the pod-logs port as their kubelet; its
	// server, which answers for them, reads the Logs objects from the API.
	if err := start(dir, s, o.bin, "kwok", "kwok",
		"--kubeconfig="+kubeconfig, "--config="+kwokConf,
		"--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		"--cidr=10.0.0.0/16", "--node-ip=127.0.0.1", "--node-lease-duration-seconds=40",
		"--node-port="+strconv.Itoa(kubeletPort), "--server-address="+kwokAddress, "--enable-crds=Logs",
	); err != nil {
		return "", err
	}
	// The launcher again, writing the pods' logs and serving them (see podLogsServer).
	if err := start(dir, s, filepath.Dir(exe), "pod-logs", filepath.Base(exe), "pod-logs", dir,
		"--listen="+fmt.Sprintf("127.0.0.1:%d", kubeletPort), "--kwok="+kwokAddress,
	); err != nil {
		return "", err
	}
	// And holding the pods whose Secrets or ConfigMaps are missing (see podConfig).
	if err := start(dir, s, filepath.Dir(exe), "pod-config", filepath.Base(exe), "pod-config", dir); err != nil {
		return "", err
	}
	if o.nodes.count > 0 {
		if err := k.create([]byte(o.nodes.manifests())); err != nil {
			return "", err
		}
	}
	for i := 0; i < o.nodes.count; i++ {
		name := fmt.Sprintf("gpu-node-%d", i)
		if err := waitFor("node "+name+" Ready", 60*time.Second, func() (bool, error) {
			var node struct {
				Status struct{ Conditions []condition } `json:"status"`
			}
			if err := k.get("/api/v1/nodes/"+name, &node); err != nil {
				return false, err
			}
			return hasCondition(node.Status.Conditions, "Ready"), nil
		}); err != nil {
			return "", fmt.Errorf("%w\n%s", err, logTail(dir, "kwok"))
		}
	}
	// Nodes kept from an earlier start of this testbed name that start's kubelet port, which is
	// another now.
	if err := pointNodesAtKubelet(k, kubeletPort); err != nil {
		return "", err
	}
	// Nodes kept from an earlier start of this testbed carry that start's handshake, which may
	// have grown old since; the scheduler would patch it and panic (see vgpuHandshake).
	if err := refreshHandshakes(k, time.Now()); err != nil {
		return "", err
	}
	step("starting the Volcano controller-manager and scheduler")
	if err := start(dir, s, o.bin, "vc-controller-manager", "vc-controller-manager",
		"--kubeconfig="+kubeconfig, "--leader-elect=false",
		"--controllers=job-controller,queue-controller,gc-controller,pg-controller",
		"--scheduler-name=volcano", "--worker-threads=2", "--v=2",
	); err != nil {
		return "", err
	}
	// Where this start of the scheduler begins its log (a restarted testbed appends to it).
	schedulerLogStart := logSize(dir, "vc-scheduler")
	confPath := filepath.Join(dir, "volcano-scheduler.conf")
	if err := os.WriteFile(confPath, []byte(schedulerConf), 0o644); err != nil {
		return "", err
	}
	if err := start(dir, s, o.bin, "vc-scheduler", "vc-scheduler",
		"--kubeconfig="+kubeconfig, "--leader-elect=false", "--scheduler-name=volcano",
		"--scheduler-conf="+confPath, "--schedule-period=200ms", "--default-queue=default",
		// Volcano counts a claim not yet bound as a volume of the CSI driver its class names
		// (attachable-volumes-csi-<provisioner>), which no node offers for ours, not being CSI:
		// a pod whose claim it saw unbound (an ephemeral one, say) would fit no node
		// (NotEnoughResources) however long it waited. Volcano ignores rancher.io/local-path
		// and hostpath.csi.k8s.io so by default.
		"--ignored-provisioners="+hostPathProvisioner,
		"--v=2",
	); err != nil {
		return "", err
	}
	vgpus := o.nodes.count > 0 && o.nodes.gpus > 0 && o.nodes.vgpuSplit > 0
	if vgpus {
		// The launcher again, as the nodes' vGPU device plugin (see vgpuPlugin).
		if err := start(dir, s, filepath.Dir(exe), "vgpu-plugin", filepath.Base(exe), "vgpu-plugin", dir); err != nil {
			return "", err
		}
	}
	if err := waitFor("the default queue to be Open", 60*time.Second, func() (bool, error) {
		var q struct {
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		}
		if err := k.get("/apis/scheduling.volcano.sh/v1beta1/queues/default", &q); err != nil {
			return false, err
		}
		return q.Status.State == "Open", fmt.Errorf("state %q", q.Status.State)
	}); err != nil {
		return "", fmt.Errorf("%w\ncontroller log:\n%s\nscheduler log:\n%s", err,
			logTail(dir, "vc-controller-manager"), logTail(dir, "vc-scheduler"))
	}

	if vgpus {
		// The scheduler sees the vGPUs only once a node changes after its first session (see
		// vgpuPlugin), which opens as it logs that it starts to run: wait for the plugin's next
		// refresh, or a vGPU pod sent at once would be placed on no card.
		step("waiting for the scheduler to take the vGPUs")
		if err := waitFor("the scheduler to start to run", 60*time.Second, func() (bool, error) {
			return strings.Contains(logSince(dir, "vc-scheduler", schedulerLogStart), "start to run"), nil
		}); err != nil {
			return "", fmt.Errorf("%w\n%s", err, logTail(dir, "vc-scheduler"))
		}
		running := time.Now()
		if err := waitFor("the vGPU plugin to refresh gpu-node-0", 35*time.Second, func() (bool, error) {
			var node struct {
				Metadata struct {
					Annotations map[string]string `json:"annotations"`
				} `json:"metadata"`
			}
			if err := k.get("/api/v1/nodes/gpu-node-0", &node); err != nil {
				return false, err
			}
			if _, ok := node.Metadata.Annotations[vgpuRegisterAnnotation]; !ok {
				// Kept from a start without vGPUs: the testbed keeps its first shape.
				return true, nil
			}
			refreshed, err := vgpuRefreshed(node.Metadata.Annotations[vgpuHandshakeAnnotation])
			// Half a second on, as its stamp is in whole seconds.
			return err == nil && refreshed.After(running.Add(500*time.Millisecond)), err
		}); err != nil {
			return "", fmt.Errorf("%w\n%s", err, logTail(dir, "vgpu-plugin"))
		}
	}
	if o.metrics {
		step("starting the GPU metrics (dcgm-exporter, Prometheus)")
		if err := startMetrics(dir, s, o.bin); err != nil {
			return "", err
		}
	}
	step("ready")
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
