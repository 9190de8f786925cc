package main

// The kubelet's part that KWOK leaves out: a pod that names a Secret or ConfigMap its namespace
// lacks does not start. A real kubelet cannot mount a secret or configMap volume whose object is
// missing (the pod stays ContainerCreating, with FailedMount events), and cannot make a container
// whose environment takes a value from a missing object or key (CreateContainerConfigError); it
// tries again until the object exists, and then starts the pod.
//
// KWOK's pod-ready stage leaves out a pod that names such an object (podConfigHoldExpression)
// until this process has found every one it names and marked it with podConfigAnnotation. Until
// then it gives the pod's containers the kubelet's waiting reason and records the kubelet's
// event, once for each failure. Optional references are not held, as the kubelet holds none.

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// podConfigAnnotation marks a pod whose Secrets and ConfigMaps were all found. Tephra refuses
// requests that set keys under its domain, so a training cannot set it itself.
const podConfigAnnotation = "testbed.tephra.dev/config"

// podConfigHoldExpression leaves out of KWOK's pod-ready stage the pods that name a Secret or
// ConfigMap and are not yet marked with podConfigAnnotation.
const podConfigHoldExpression = `    - key: '(.metadata.annotations["` + podConfigAnnotation + `"] // "") as $checked | [(.spec.volumes // [])[] | (.secret, .configMap) | select(. != null and .optional != true)] + [((.spec.initContainers // []) + .spec.containers)[] | ((.env // [])[] | .valueFrom | select(. != null) | (.secretKeyRef, .configMapKeyRef) | select(. != null and .optional != true)), ((.envFrom // [])[] | (.secretRef, .configMapRef) | select(. != null and .optional != true))] | (length > 0 and $checked != "found") | tostring'
      operator: 'NotIn'
      values: ['true']
`

// objectRef is a Secret or ConfigMap, optionally one key of it.
type objectRef struct {
	Name     string `json:"name"`
	Key      string `json:"key"`
	Optional *bool  `json:"optional"`
}

func (r *objectRef) required() bool { return r != nil && (r.Optional == nil || !*r.Optional) }

type configPod struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		NodeName string `json:"nodeName"`
		Volumes  []struct {
			Name   string `json:"name"`
			Secret *struct {
				SecretName string `json:"secretName"`
				Optional   *bool  `json:"optional"`
			} `json:"secret"`
			ConfigMap *objectRef `json:"configMap"`
		} `json:"volumes"`
		InitContainers []configContainer `json:"initContainers"`
		Containers     []configContainer `json:"containers"`
	} `json:"spec"`
}

type configContainer struct {
	Name  string `json:"name"`
	Image string `json:"image"`
	Env   []struct {
		ValueFrom *struct {
			SecretKeyRef    *objectRef `json:"secretKeyRef"`
			ConfigMapKeyRef *objectRef `json:"configMapKeyRef"`
		} `json:"valueFrom"`
	} `json:"env"`
	EnvFrom []struct {
		SecretRef    *objectRef `json:"secretRef"`
		ConfigMapRef *objectRef `json:"configMapRef"`
	} `json:"envFrom"`
}

// needed is one object a pod needs: for a volume, container is "" and key the volume's name.
type needed struct {
	container string
	kind      string // "secret" or "configmap", as the kubelet's messages spell them
	name, key string
}

// failure is why a pod cannot start, as the kubelet says it: the container it is about ("" for
// the pod's volumes), its waiting reason and message, and the event's reason and message.
type failure struct {
	container, reason, message string
	eventReason, eventMessage  string
}

// podConfig checks the pods bound to a node and still Pending, four times a second, until it is
// stopped. It polls, as the storage provisioner does: such pods are few at any moment.
func podConfig(dir string) error {
	k, err := kubeFromConfig(filepath.Join(dir, "kubeconfig"))
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "pod-config: holding pods whose Secrets or ConfigMaps are missing")
	told := map[string]bool{} // pod uid + event message: each event is recorded once
	for {
		if err := checkPodConfigOnce(k, told); err != nil {
			fmt.Fprintf(os.Stderr, "pod-config: %v\n", err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func checkPodConfigOnce(k *kube, told map[string]bool) error {
	var pods struct{ Items []configPod }
	if err := k.get("/api/v1/pods?fieldSelector="+url.QueryEscape("spec.nodeName!=,status.phase=Pending"), &pods); err != nil {
		return err
	}
	for _, p := range pods.Items {
		refs := p.needs()
		if p.Metadata.DeletionTimestamp != nil || p.Metadata.Annotations[podConfigAnnotation] == "found" || len(refs) == 0 {
			continue
		}
		path := fmt.Sprintf("/api/v1/namespaces/%s/pods/%s", url.PathEscape(p.Metadata.Namespace), url.PathEscape(p.Metadata.Name))
		f, err := p.firstFailure(refs, func(kind, name string) (map[string]string, bool, error) {
			return objectKeys(k, p.Metadata.Namespace, kind, name)
		})
		if err != nil {
			return err
		}
		if f == nil {
			patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:"found"}}}`, podConfigAnnotation)
			if err := k.mergePatch(path, []byte(patch)); err != nil {
				return err
			}
			continue
		}
		if err := k.mergePatch(path+"/status", p.waitingStatus(*f)); err != nil {
			return err
		}
		if key := p.Metadata.UID + "\n" + f.eventMessage; !told[key] {
			if err := recordEvent(k, p, *f); err != nil {
				return err
			}
			told[key] = true
		}
	}
	return nil
}

// needs lists the objects the pod needs, in the order the kubelet needs them: volumes, then each
// container's environment (key "" for envFrom).
func (p *configPod) needs() []needed {
	var refs []needed
	for _, v := range p.Spec.Volumes {
		if s := v.Secret; s != nil && (s.Optional == nil || !*s.Optional) {
			refs = append(refs, needed{kind: "secret", name: s.SecretName, key: v.Name})
		}
		if v.ConfigMap.required() {
			refs = append(refs, needed{kind: "configmap", name: v.ConfigMap.Name, key: v.Name})
		}
	}
	for _, c := range append(append([]configContainer{}, p.Spec.InitContainers...), p.Spec.Containers...) {
		for _, e := range c.Env {
			if e.ValueFrom == nil {
				continue
			}
			if r := e.ValueFrom.SecretKeyRef; r.required() {
				refs = append(refs, needed{c.Name, "secret", r.Name, r.Key})
			}
			if r := e.ValueFrom.ConfigMapKeyRef; r.required() {
				refs = append(refs, needed{c.Name, "configmap", r.Name, r.Key})
			}
		}
		for _, e := range c.EnvFrom {
			if r := e.SecretRef; r.required() {
				refs = append(refs, needed{c.Name, "secret", r.Name, ""})
			}
			if r := e.ConfigMapRef; r.required() {
				refs = append(refs, needed{c.Name, "configmap", r.Name, ""})
			}
		}
	}
	return refs
}

// firstFailure is the first of refs that fails, in the kubelet's words, or nil.
func (p *configPod) firstFailure(refs []needed, lookup func(kind, name string) (map[string]string, bool, error)) (*failure, error) {
	for _, r := range refs {
		data, exists, err := lookup(r.kind, r.name)
		if err != nil {
			return nil, err
		}
		notFound := fmt.Sprintf("%s %q not found", r.kind, r.name)
		switch {
		case r.container == "" && !exists:
			return &failure{reason: "ContainerCreating", eventReason: "FailedMount",
				eventMessage: fmt.Sprintf("MountVolume.SetUp failed for volume %q : %s", r.key, notFound)}, nil
		case !exists:
			return &failure{container: r.container, reason: "CreateContainerConfigError", message: notFound,
				eventReason: "Failed", eventMessage: "Error: " + notFound}, nil
		case r.container != "" && r.key != "":
			if _, ok := data[r.key]; !ok {
				kind := map[string]string{"secret": "Secret", "configmap": "ConfigMap"}[r.kind]
				message := fmt.Sprintf("couldn't find key %s in %s %s/%s", r.key, kind, p.Metadata.Namespace, r.name)
				return &failure{container: r.container, reason: "CreateContainerConfigError", message: message,
					eventReason: "Failed", eventMessage: "Error: " + message}, nil
			}
		}
	}
	return nil, nil
}

// objectKeys reads the keys of a Secret or ConfigMap; exists is false when there is none.
func objectKeys(k *kube, namespace, kind, name string) (map[string]string, bool, error) {
	plural := map[string]string{"secret": "secrets", "configmap": "configmaps"}[kind]
	path := fmt.Sprintf("/api/v1/namespaces/%s/%s/%s", url.PathEscape(namespace), plural, url.PathEscape(name))
	code, body, err := k.do("GET", path, nil, "")
	if err != nil {
		return nil, false, err
	}
	if code == 404 {
		return nil, false, nil
	}
	if code != 200 {
		return nil, false, fmt.Errorf("GET %s: %d %s", path, code, body)
	}
	var object struct {
		Data       map[string]string `json:"data"`
		BinaryData map[string]string `json:"binaryData"`
	}
	if err := json.Unmarshal(body, &object); err != nil {
		return nil, false, err
	}
	keys := map[string]string{}
	for _, m := range []map[string]string{object.Data, object.BinaryData} {
		for key, value := range m {
			keys[key] = value
		}
	}
	return keys, true, nil
}

// waitingStatus is the status merge patch that shows every container waiting: the one whose
// environment fails with its reason, the others (all of them while a volume fails) as waiting for
// their pod (PodInitializing behind init containers).
func (p *configPod) waitingStatus(f failure) []byte {
	others := "ContainerCreating"
	if len(p.Spec.InitContainers) > 0 {
		others = "PodInitializing"
	}
	statuses := func(containers []configContainer) []map[string]any {
		out := []map[string]any{}
		for _, c := range containers {
			waiting := map[string]any{"reason": others}
			if f.container != "" && f.container == c.Name {
				waiting = map[string]any{"reason": f.reason, "message": f.message}
			}
			out = append(out, map[string]any{
				"name": c.Name, "image": c.Image, "imageID": "", "ready": false, "started": false,
				"restartCount": 0, "state": map[string]any{"waiting": waiting},
			})
		}
		return out
	}
	status := map[string]any{"containerStatuses": statuses(p.Spec.Containers)}
	if len(p.Spec.InitContainers) > 0 {
		status["initContainerStatuses"] = statuses(p.Spec.InitContainers)
	}
	patch, _ := json.Marshal(map[string]any{"status": status})
	return patch
}

// recordEvent records the kubelet's Warning about the pod.
func recordEvent(k *kube, p configPod, f failure) error {
	now := time.Now().UTC().Format(time.RFC3339)
	event, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"generateName": p.Metadata.Name + ".", "namespace": p.Metadata.Namespace},
		"involvedObject": map[string]any{
			"apiVersion": "v1", "kind": "Pod", "namespace": p.Metadata.Namespace, "name": p.Metadata.Name, "uid": p.Metadata.UID,
		},
		"type": "Warning", "reason": f.eventReason, "message": f.eventMessage,
		"source":         map[string]any{"component": "kubelet", "host": p.Spec.NodeName},
		"firstTimestamp": now, "lastTimestamp": now, "count": 1,
	})
	if err != nil {
		return err
	}
	path := fmt.Sprintf("/api/v1/namespaces/%s/events", url.PathEscape(p.Metadata.Namespace))
	code, body, err := k.do("POST", path, event, "application/json")
	if err != nil {
		return err
	}
	if code != 201 {
		return fmt.Errorf("POST %s: %d %s", path, code, body)
	}
	return nil
}
