package main

// Storage that pods can really use: a default StorageClass whose volumes are directories under
// the testbed's DIR, the CSIDriver object of the S3 driver Tephra mounts buckets with, and the
// provisioner that makes the class's volumes. kube-controller-manager's persistent-volume
// controllers do the rest (binding, protection, ephemeral claims), as in a real cluster.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

const (
	storageClassName    = "standard"
	hostPathProvisioner = "testbed.tephra.dev/hostpath"
	// The yandex-cloud/k8s-csi-s3 driver's name.
	s3Driver = "ru.yandex.s3.csi"
	// What an external provisioner marks its volumes with; kube-controller-manager then leaves
	// deleting them to it (its binder only deletes volumes of in-tree plugins).
	provisionedByAnnotation = "pv.kubernetes.io/provisioned-by"
)

// storageObjects are created at start. The class is the default, so a claim that names none
// gets it (DefaultStorageClass admission), and binds at once: the provisioner needs no node, and
// Volcano then places the pod wherever it likes (the volume has no node affinity). The
// CSIDriver is what yandex-cloud/k8s-csi-s3's deployment creates; Tephra renders S3 buckets as
// static volumes of that driver. Nothing runs the driver (KWOK mounts nothing): the object tells
// the control plane that its volumes need no attaching, and each node's CSINode (csiNode) that
// its node plugin is there.
const storageObjects = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: ` + storageClassName + `
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: ` + hostPathProvisioner + `
reclaimPolicy: Delete
volumeBindingMode: Immediate
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata:
  name: ` + s3Driver + `
spec:
  attachRequired: false
  podInfoOnMount: true
`

// csiNode registers the S3 driver on a node, as the kubelet does once the driver's node plugin
// (its DaemonSet) runs there. Volcano needs it: it counts each CSI volume a pod mounts as a
// resource, attachable-volumes-csi-<driver>, that a node offers only for the drivers its
// CSINode lists (without limit when, as here, the driver sets none). Without it a pod with an
// S3 volume fits no node ("NotEnoughResources"), as it would on a real node without the plugin.
func csiNode(node string) string {
	return fmt.Sprintf(`apiVersion: storage.k8s.io/v1
kind: CSINode
metadata:
  name: %s
spec:
  drivers:
  - name: %s
    nodeID: %s
`, node, s3Driver, node)
}

type objectMeta struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace,omitempty"`
	UID               string            `json:"uid,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
	DeletionTimestamp *string           `json:"deletionTimestamp,omitempty"`
}

type claim struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		StorageClassName *string         `json:"storageClassName"`
		VolumeName       string          `json:"volumeName"`
		AccessModes      json.RawMessage `json:"accessModes"`
		VolumeMode       *string         `json:"volumeMode"`
		Resources        struct {
			Requests map[string]string `json:"requests"`
		} `json:"resources"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase"`
	} `json:"status"`
}

// storageProvisioner provisions and deletes the volumes of every StorageClass whose
// provisioner is ours, until it is stopped. It polls each second rather than watching: claims
// are few on a testbed, and a poll needs no resumable watch to survive API restarts.
func storageProvisioner(dir string) error {
	k, err := kubeFromConfig(filepath.Join(dir, "kubeconfig"))
	if err != nil {
		return err
	}
	volumes := filepath.Join(dir, "volumes")
	fmt.Fprintf(os.Stderr, "storage-provisioner: provisioning %s volumes under %s\n", hostPathProvisioner, volumes)
	for {
		// An API error is told and retried at the next tick: the provisioner lives as long as
		// the testbed does.
		if err := provisionOnce(k, volumes); err != nil {
			fmt.Fprintf(os.Stderr, "storage-provisioner: %v\n", err)
		}
		time.Sleep(time.Second)
	}
}

func provisionOnce(k *kube, volumes string) error {
	var classes struct {
		Items []struct {
			Metadata    objectMeta `json:"metadata"`
			Provisioner string     `json:"provisioner"`
		} `json:"items"`
	}
	if err := k.get("/apis/storage.k8s.io/v1/storageclasses", &classes); err != nil {
		return err
	}
	ours := map[string]bool{}
	for _, c := range classes.Items {
		if c.Provisioner == hostPathProvisioner {
			ours[c.Metadata.Name] = true
		}
	}

	var errs []error
	var claims struct{ Items []claim }
	if err := k.get("/api/v1/persistentvolumeclaims", &claims); err != nil {
		return err
	}
	for _, c := range claims.Items {
		// A claim that names a volume is bound statically; one without a class is not ours
		// (the default class is filled in on creation, or by the binder for older claims).
		if c.Status.Phase != "Pending" || c.Spec.VolumeName != "" || c.Metadata.DeletionTimestamp != nil ||
			c.Spec.StorageClassName == nil || !ours[*c.Spec.StorageClassName] {
			continue
		}
		// One claim that cannot be provisioned must not hold up the others.
		if err := provision(k, volumes, c); err != nil {
			errs = append(errs, err)
		}
	}

	// A Released volume's claim is gone: with reclaim policy Delete, its provisioner deletes it
	// (the binder does so only for in-tree plugins). A volume made for a claim deleted before it
	// bound is Released too, by the binder.
	var pvs struct {
		Items []struct {
			Metadata objectMeta `json:"metadata"`
			Spec     struct {
				PersistentVolumeReclaimPolicy string `json:"persistentVolumeReclaimPolicy"`
				HostPath                      *struct {
					Path string `json:"path"`
				} `json:"hostPath"`
			} `json:"spec"`
			Status struct {
				Phase string `json:"phase"`
			} `json:"status"`
		} `json:"items"`
	}
	if err := k.get("/api/v1/persistentvolumes", &pvs); err != nil {
		return errors.Join(append(errs, err)...)
	}
	for _, pv := range pvs.Items {
		if pv.Metadata.Annotations[provisionedByAnnotation] != hostPathProvisioner || pv.Status.Phase != "Released" ||
			pv.Spec.PersistentVolumeReclaimPolicy != "Delete" || pv.Metadata.DeletionTimestamp != nil {
			continue
		}
		path := "/api/v1/persistentvolumes/" + url.PathEscape(pv.Metadata.Name)
		code, body, err := k.do("DELETE", path, nil, "")
		if err == nil && code != 200 && code != 202 && code != 404 {
			err = fmt.Errorf("DELETE %s: %d %s", path, code, strings.TrimSpace(string(body)))
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		// Only our own directories: a volume edited to point elsewhere keeps its data.
		if pv.Spec.HostPath != nil && filepath.Dir(pv.Spec.HostPath.Path) == volumes {
			_ = os.RemoveAll(pv.Spec.HostPath.Path)
		}
		fmt.Fprintf(os.Stderr, "storage-provisioner: deleted %s\n", pv.Metadata.Name)
	}
	return errors.Join(errs...)
}

// provision creates the volume for a claim: named pvc-<claim uid> like every provisioner's, so
// a second poll before the binder has bound it finds it there (409) instead of making another.
// The claimRef binds it to this claim alone; the binder completes the binding and the statuses.
func provision(k *kube, volumes string, c claim) error {
	name := "pvc-" + c.Metadata.UID
	path := filepath.Join(volumes, name)
	// The directory is made here, as no kubelet runs to make it (KWOK's pods mount nothing).
	if err := os.MkdirAll(path, 0o777); err != nil {
		return err
	}
	spec := map[string]any{
		"capacity":                      map[string]string{"storage": c.Spec.Resources.Requests["storage"]},
		"accessModes":                   c.Spec.AccessModes,
		"storageClassName":              *c.Spec.StorageClassName,
		"persistentVolumeReclaimPolicy": "Delete",
		"hostPath":                      map[string]string{"path": path, "type": "DirectoryOrCreate"},
		"claimRef": map[string]string{
			"apiVersion": "v1", "kind": "PersistentVolumeClaim",
			"namespace": c.Metadata.Namespace, "name": c.Metadata.Name, "uid": c.Metadata.UID,
		},
	}
	if c.Spec.VolumeMode != nil {
		spec["volumeMode"] = *c.Spec.VolumeMode
	}
	pv, err := json.Marshal(map[string]any{
		"apiVersion": "v1",
		"kind":       "PersistentVolume",
		"metadata": map[string]any{
			"name":        name,
			"annotations": map[string]string{provisionedByAnnotation: hostPathProvisioner},
		},
		"spec": spec,
	})
	if err != nil {
		return err
	}
	code, body, err := k.do("POST", "/api/v1/persistentvolumes", pv, "application/json")
	if err != nil {
		return err
	}
	switch code {
	case 201:
		fmt.Fprintf(os.Stderr, "storage-provisioner: provisioned %s for %s/%s\n", name, c.Metadata.Namespace, c.Metadata.Name)
	case 409: // made at an earlier poll, not bound yet
	default:
		return fmt.Errorf("creating %s for %s/%s: %d %s", name, c.Metadata.Namespace, c.Metadata.Name, code, strings.TrimSpace(string(body)))
	}
	return nil
}
