"""What a Run:ai script does, through Run:ai's own Python SDK (runapy), against Tephra.

Run by tests/cluster/runai.rs with: BASE_URL CLIENT_ID CLIENT_SECRET. Every step prints one
line; any failure raises, so the exit status says whether the script ran unmodified.
"""

import sys
import time

from runai import models
from runai.api_client import ApiClient
from runai.configuration import Configuration
from runai.exceptions import ApiException
from runai.runai_client import RunaiClient

WAIT_SECONDS = 120


def step(message):
    print(message, flush=True)


def wait_for(what, read, done):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        seen = read()
        if done(seen):
            return seen
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; last seen: {seen}")
        time.sleep(0.5)


def phase_of(read):
    return lambda: read().data.get("actualPhase")


def gone(read):
    def check():
        try:
            return read().data.get("actualPhase")
        except ApiException as e:
            if e.status == 404:
                return "gone"
            raise

    return check


def lifecycle(kind, api, workload_id):
    """Suspend, resume and delete, waiting for each to reach the cluster."""
    get = getattr(api, f"get_{kind}")
    read = lambda: get(workload_id)
    wait_for(f"{kind} running", phase_of(read), lambda p: p == "Running")
    step(f"{kind} {workload_id} is running")
    getattr(api, f"suspend_{kind}")(workload_id)
    wait_for(f"{kind} stopped", phase_of(read), lambda p: p == "Stopped")
    step(f"{kind} suspended")
    getattr(api, f"resume_{kind}")(workload_id)
    wait_for(f"{kind} running again", phase_of(read), lambda p: p == "Running")
    step(f"{kind} resumed")
    getattr(api, f"delete_{kind}")(workload_id)
    wait_for(f"{kind} deleted", gone(read), lambda p: p == "gone")
    step(f"{kind} deleted")


def main(base_url, client_id, client_secret):
    config = Configuration(
        client_id=client_id, client_secret=client_secret, runai_base_url=base_url
    )
    client = RunaiClient(ApiClient(config))
    step("signed in with the application's credentials")

    projects = client.organizations.projects.get_projects().data["projects"]
    project = next(p for p in projects if p["name"] == "default")
    # Run:ai clients take the cluster from the project.
    project_id, cluster_id = project["id"], project["clusterId"]
    step(f"project default is {project_id} on cluster {cluster_id}")

    clusters = client.organizations.clusters.get_clusters().data
    assert [c["uuid"] for c in clusters] == [cluster_id], clusters
    assert client.organizations.clusters.get_cluster_by_uuid(cluster_id).data["uuid"] == cluster_id
    step("the cluster is listed")

    trainings = client.workloads.trainings
    # The SDK README's training: a portion of one GPU.
    readme = models.TrainingCreationRequest(
        name="sdk-readme",
        project_id=project_id,
        cluster_id=cluster_id,
        spec=models.TrainingSpecSpec(
            image="busybox",
            compute=models.SupersetSpecAllOfCompute(
                gpu_devices_request=1, gpu_portion_request=1, gpu_request_type="portion"
            ),
        ),
    )
    accepted = trainings.create_training1(training_creation_request=readme).data
    assert accepted["requestedName"] == "sdk-readme", accepted
    trainings.delete_training(accepted["workloadId"])
    step("the README's portion training is accepted")

    training = models.TrainingCreationRequest(
        name="sdk-train",
        use_given_name_as_prefix=True,
        project_id=project_id,
        cluster_id=cluster_id,
        spec=models.TrainingSpecSpec(
            image="busybox",
            command="sleep",
            args="600",
            category="Train",
            preemptibility="preemptible",
            restart_policy="Never",
            termination_grace_period_seconds=30,
            compute=models.SupersetSpecAllOfCompute(gpu_devices_request=1),
        ),
    )
    created = trainings.create_training1(training_creation_request=training).data
    assert created["clusterId"] == cluster_id, created
    step(f"training {created['name']} accepted")
    # Scripts list trainings through Run:ai's list of every workload.
    workloads = client.workloads.workloads
    listed = workloads.get_workloads(filter_by=["type==Training", "name=^sdk-train"]).data
    names = [w["name"] for w in listed["workloads"]]
    assert names == [created["name"]], listed
    one = workloads.get_workload(created["workloadId"]).data
    assert one["type"] == "Training" and one["projectId"] == project_id, one
    step("the training is listed")
    lifecycle("training", trainings, created["workloadId"])

    distributed = client.workloads.distributed
    request = models.DistributedCreationRequest(
        name="sdk-ddp",
        project_id=project_id,
        cluster_id=cluster_id,
        spec=models.DistributedSpecSpec(
            image="pytorch/pytorch",
            distributed_framework="PyTorch",
            num_workers=2,
            compute=models.SupersetSpecAllOfCompute(gpu_devices_request=1),
        ),
    )
    created = distributed.create_distributed(distributed_creation_request=request).data
    step(f"distributed {created['name']} accepted")
    lifecycle("distributed", distributed, created["workloadId"])
    step("done")


if __name__ == "__main__":
    main(*sys.argv[1:4])
