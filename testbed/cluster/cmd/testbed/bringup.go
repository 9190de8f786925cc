package main

// Bringing a testbed up: each component started, and waited for, before the next that needs it.

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// launch is one bring-up under way: where the testbed lives, what it has started, and the API
// server once it answers.
type launch struct {
	dir   string
	s     *state
	o     upOptions
	began time.Time
	// The launcher itself, run again as the storage provisioner, the pod logs, the pod config
	// and the vGPU plugin.
	exe        string
	k          *kube
	kubeconfig string
}

func bringUp(dir string, s *state, o upOptions) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	l := &launch{dir: dir, s: s, o: o, began: time.Now(), exe: exe}
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
	etcdURL, err := l.startEtcd(etcdPort, peerPort)
	if err != nil {
		return "", err
	}
	if err := l.startAPIServer(etcdURL, apiPort, creds); err != nil {
		return "", err
	}
	if err := l.installCRDs(); err != nil {
		return "", err
	}
	if err := l.startControllers(kcmPort); err != nil {
		return "", err
	}
	// The nodes come before Volcano: the scheduler sizes the root queue (the capacity plugin's
	// hierarchy) from the nodes it sees first, and a root sized to one node caps the whole cluster.
	if err := l.startNodes(kwokAddress, kubeletPort); err != nil {
		return "", err
	}
	if err := l.startVolcano(); err != nil {
		return "", err
	}
	if o.metrics {
		l.step("starting the GPU metrics (dcgm-exporter, Prometheus)")
		if err := startMetrics(dir, s, o.bin); err != nil {
			return "", err
		}
	}
	l.step("ready")
	return l.kubeconfig, nil
}

// waitForCondition waits up to a minute for the object at path to have condition cond.
func (l *launch) waitForCondition(path, cond string) error {
	return waitFor(path+" "+cond, 60*time.Second, func() (bool, error) {
		var object struct {
			Status struct{ Conditions []condition } `json:"status"`
		}
		if err := l.k.get(path, &object); err != nil {
			return false, err
		}
		return hasCondition(object.Status.Conditions, cond), nil
	})
}

func (l *launch) step(what string) {
	fmt.Fprintf(os.Stderr, "[%5.1fs] %s\n", time.Since(l.began).Seconds(), what)
}

// run starts the testbed's binary name as the component of that name.
func (l *launch) run(name string, args ...string) error {
	return start(l.dir, l.s, l.o.bin, name, name, args...)
}

// runSelf starts the launcher's subcommand name on this testbed as the component of that name.
func (l *launch) runSelf(name string, args ...string) error {
	return start(l.dir, l.s, filepath.Dir(l.exe), name, filepath.Base(l.exe),
		append([]string{name, l.dir}, args...)...)
}

func (l *launch) startEtcd(etcdPort, peerPort int) (string, error) {
	l.step("starting etcd")
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	if err := l.run("etcd",
		"--name=testbed", "--data-dir="+filepath.Join(l.dir, "etcd"),
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
		return "", fmt.Errorf("%w\n%s", err, logTail(l.dir, "etcd"))
	}
	return etcdURL, nil
}

func (l *launch) startAPIServer(etcdURL string, apiPort int, creds *credentials) error {
	l.step("starting kube-apiserver")
	pki := filepath.Join(l.dir, "pki")
	if err := l.run("kube-apiserver",
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port="+strconv.Itoa(apiPort),
		"--tls-cert-file="+filepath.Join(pki, "apiserver.crt"), "--tls-private-key-file="+filepath.Join(pki, "apiserver.key"),
		"--cert-dir="+pki,
		"--token-auth-file="+filepath.Join(l.dir, "token.csv"),
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
		return err
	}
	server := fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	l.k = newKube(server, creds.token, creds.caCertPEM)
	if err := waitFor("kube-apiserver /readyz", 120*time.Second, func() (bool, error) {
		code, body, err := l.k.do("GET", "/readyz", nil, "")
		if err != nil {
			return false, err
		}
		return code == 200, fmt.Errorf("%d %s", code, body)
	}); err != nil {
		return fmt.Errorf("%w\n%s", err, logTail(l.dir, "kube-apiserver"))
	}
	l.kubeconfig = filepath.Join(l.dir, "kubeconfig")
	if err := writeKubeconfig(l.kubeconfig, server, creds); err != nil {
		return err
	}
	l.s.APIServer, l.s.Kubeconfig = server, l.kubeconfig
	return l.s.save(l.dir)
}

// installCRDs installs Volcano's CRDs and KWOK's Logs, and waits until each is established.
func (l *launch) installCRDs() error {
	l.step("installing the Volcano CRDs and KWOK's Logs")
	crdDir := filepath.Join(l.o.volcanoDir, "config/crd/volcano/bases")
	files, err := filepath.Glob(filepath.Join(crdDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no CRDs in %s", crdDir)
	}
	// The objects that tell KWOK where each container's log is (see podlogs.go).
	files = append(files, filepath.Join(l.o.kwokDir, "kustomize/crd/bases/kwok.x-k8s.io_logs.yaml"))
	var crdNames []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := l.k.create(data); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
		// File names are <group>_<plural>.yaml; the CRD is <plural>.<group>.
		group, plural, _ := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".yaml"), "_")
		crdNames = append(crdNames, plural+"."+group)
	}
	for _, name := range crdNames {
		if err := l.waitForCondition("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+name, "Established"); err != nil {
			return err
		}
	}
	if err := l.k.create([]byte(priorityClasses)); err != nil {
		return err
	}
	return l.k.create([]byte(storageObjects))
}

func (l *launch) startControllers(kcmPort int) error {
	l.step("starting kube-controller-manager and the storage provisioner")
	// Besides the garbage collector and namespaces, the persistent-volume controllers: the
	// binder binds claims to volumes (and asks external provisioners for new ones), the two
	// protection controllers let a volume or claim in use be deleted only once it is not, and
	// the ephemeral-volume controller makes the claims of pods' ephemeral volumes. And the pod
	// garbage collector, which fails and deletes the pods of a node deleted 40 s before (condition
	// DisruptionTarget, reason DeletionByPodGC), as on any cluster.
	if err := l.run("kube-controller-manager",
		"--kubeconfig="+l.kubeconfig, "--leader-elect=false",
		"--controllers=garbage-collector-controller,namespace-controller,pod-garbage-collector-controller,"+
			"persistentvolume-binder-controller,persistentvolume-protection-controller,"+
			"persistentvolumeclaim-protection-controller,ephemeral-volume-controller",
		// The binder finishes a binding that lost a race (a claim and its pre-bound volume
		// created together, say) only at its next resync, 15 s by default.
		"--pvclaimbinder-sync-period=1s",
		"--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(kcmPort),
		"--kube-api-qps=100", "--kube-api-burst=200", "--v=1",
	); err != nil {
		return err
	}
	// The launcher itself, run on as the provisioner of the default StorageClass (see
	// storageProvisioner).
	return l.runSelf("storage-provisioner")
}

func (l *launch) startNodes(kwokAddress string, kubeletPort int) error {
	l.step("starting KWOK and the pod logs, and creating the nodes")
	config, err := kwokConfig(l.o.kwokDir)
	if err != nil {
		return err
	}
	kwokConf := filepath.Join(l.dir, "kwok.yaml")
	if err := os.WriteFile(kwokConf, []byte(config), 0o644); err != nil {
		return err
	}
	// The nodes KWOK initializes name 127.0.0.1 and the pod-logs port as their kubelet; its
	// server, which answers for them, reads the Logs objects from the API.
	if err := l.run("kwok",
		"--kubeconfig="+l.kubeconfig, "--config="+kwokConf,
		"--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		"--cidr=10.0.0.0/16", "--node-ip=127.0.0.1", "--node-lease-duration-seconds=40",
		"--node-port="+strconv.Itoa(kubeletPort), "--server-address="+kwokAddress, "--enable-crds=Logs",
	); err != nil {
		return err
	}
	// The launcher again, writing the pods' logs and serving them (see podLogsServer).
	if err := l.runSelf("pod-logs",
		"--listen="+fmt.Sprintf("127.0.0.1:%d", kubeletPort), "--kwok="+kwokAddress,
	); err != nil {
		return err
	}
	// And holding the pods whose Secrets or ConfigMaps are missing (see podConfig).
	if err := l.runSelf("pod-config"); err != nil {
		return err
	}
	if l.o.nodes.count > 0 {
		if err := l.k.create([]byte(l.o.nodes.manifests())); err != nil {
			return err
		}
	}
	for i := 0; i < l.o.nodes.count; i++ {
		name := fmt.Sprintf("gpu-node-%d", i)
		if err := l.waitForCondition("/api/v1/nodes/"+name, "Ready"); err != nil {
			return fmt.Errorf("%w\n%s", err, logTail(l.dir, "kwok"))
		}
	}
	// Nodes kept from an earlier start of this testbed name that start's kubelet port, which is
	// another now.
	if err := pointNodesAtKubelet(l.k, kubeletPort); err != nil {
		return err
	}
	// Nodes kept from an earlier start of this testbed carry that start's handshake, which may
	// have grown old since; the scheduler would patch it and panic (see vgpuHandshake).
	return refreshHandshakes(l.k, time.Now())
}

func (l *launch) startVolcano() error {
	l.step("starting the Volcano controller-manager and scheduler")
	if err := l.run("vc-controller-manager",
		"--kubeconfig="+l.kubeconfig, "--leader-elect=false",
		"--controllers=job-controller,queue-controller,gc-controller,pg-controller",
		"--scheduler-name=volcano", "--worker-threads=2", "--v=2",
	); err != nil {
		return err
	}
	// Where this start of the scheduler begins its log (a restarted testbed appends to it).
	schedulerLogStart := logSize(l.dir, "vc-scheduler")
	confPath := filepath.Join(l.dir, "volcano-scheduler.conf")
	if err := os.WriteFile(confPath, []byte(schedulerConf), 0o644); err != nil {
		return err
	}
	if err := l.run("vc-scheduler",
		"--kubeconfig="+l.kubeconfig, "--leader-elect=false", "--scheduler-name=volcano",
		"--scheduler-conf="+confPath, "--schedule-period=200ms", "--default-queue=default",
		// Volcano counts a claim not yet bound as a volume of the CSI driver its class names
		// (attachable-volumes-csi-<provisioner>), which no node offers for ours, not being CSI:
		// a pod whose claim it saw unbound (an ephemeral one, say) would fit no node
		// (NotEnoughResources) however long it waited. Volcano ignores rancher.io/local-path
		// and hostpath.csi.k8s.io so by default.
		"--ignored-provisioners="+hostPathProvisioner,
		"--v=2",
	); err != nil {
		return err
	}
	vgpus := l.o.nodes.count > 0 && l.o.nodes.gpus > 0 && l.o.nodes.vgpuSplit > 0
	if vgpus {
		// The launcher again, as the nodes' vGPU device plugin (see vgpuPlugin).
		if err := l.runSelf("vgpu-plugin"); err != nil {
			return err
		}
	}
	if err := waitFor("the default queue to be Open", 60*time.Second, func() (bool, error) {
		var q struct {
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		}
		if err := l.k.get("/apis/scheduling.volcano.sh/v1beta1/queues/default", &q); err != nil {
			return false, err
		}
		return q.Status.State == "Open", fmt.Errorf("state %q", q.Status.State)
	}); err != nil {
		return fmt.Errorf("%w\ncontroller log:\n%s\nscheduler log:\n%s", err,
			logTail(l.dir, "vc-controller-manager"), logTail(l.dir, "vc-scheduler"))
	}
	if vgpus {
		return l.waitForVGPUs(schedulerLogStart)
	}
	return nil
}

// waitForVGPUs waits until the scheduler has taken the vGPUs the plugin registered.
func (l *launch) waitForVGPUs(schedulerLogStart int64) error {
	// The scheduler sees the vGPUs only once a node changes after its first session (see
	// vgpuPlugin), which opens as it logs that it starts to run: wait for the plugin's next
	// refresh, or a vGPU pod sent at once would be placed on no card.
	l.step("waiting for the scheduler to take the vGPUs")
	if err := waitFor("the scheduler to start to run", 60*time.Second, func() (bool, error) {
		return strings.Contains(logSince(l.dir, "vc-scheduler", schedulerLogStart), "start to run"), nil
	}); err != nil {
		return fmt.Errorf("%w\n%s", err, logTail(l.dir, "vc-scheduler"))
	}
	running := time.Now()
	if err := waitFor("the vGPU plugin to refresh gpu-node-0", 35*time.Second, func() (bool, error) {
		var node struct {
			Metadata struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		}
		if err := l.k.get("/api/v1/nodes/gpu-node-0", &node); err != nil {
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
		return fmt.Errorf("%w\n%s", err, logTail(l.dir, "vgpu-plugin"))
	}
	return nil
}
