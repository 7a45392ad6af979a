#!/usr/bin/env bash
# End-to-end install on a throw-away kind cluster, for machines WITH a Docker engine (the project's CI machines have
# none, so this script is not part of `npm test`). Needs: docker, kind, helm (3 or 4), kubectl, curl, jq.
#
#   scripts/kind-e2e.sh            # build, install, smoke test, delete the cluster
#   KEEP_CLUSTER=1 scripts/kind-e2e.sh   # leave the cluster running afterwards
#
# Steps: build the image -> create a kind cluster -> load the image -> helm install (CRDs included) -> wait for the
# rollout -> port-forward -> /readyz -> sign in -> apply an example Canary -> download a kubeconfig from the console
# -> `kubectl get canaries -A` through /kubeproxy -> cleanup.
set -euo pipefail
cd "$(dirname "$0")/.."

CLUSTER=${CLUSTER:-ops-console-e2e}
NAMESPACE=${NAMESPACE:-ops}
RELEASE=${RELEASE:-ops}
IMAGE=${IMAGE:-ops-console:e2e}
LOCAL_PORT=${LOCAL_PORT:-18080}
ADMIN_EMAIL=admin@localhost
ADMIN_PASSWORD=${ADMIN_PASSWORD:-e2e-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')}
WORK=$(mktemp -d)
PF_PID=''

for tool in docker kind helm kubectl curl jq; do
  command -v "$tool" >/dev/null || { echo "kind-e2e: $tool is required" >&2; exit 2; }
done
docker info >/dev/null 2>&1 || { echo 'kind-e2e: no Docker engine reachable' >&2; exit 2; }

cleanup() {
  local rc=$?
  [[ -n "$PF_PID" ]] && kill "$PF_PID" 2>/dev/null || true
  if ((rc != 0)); then
    echo "kind-e2e FAILED (exit $rc); console logs:" >&2
    kubectl --context "kind-$CLUSTER" -n "$NAMESPACE" logs "deployment/$RELEASE-ops-console" --tail=80 2>/dev/null >&2 || true
  fi
  if [[ -z "${KEEP_CLUSTER:-}" ]]; then kind delete cluster --name "$CLUSTER" >/dev/null 2>&1 || true; fi
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT
step() { echo; echo "==> $*"; }
K() { kubectl --context "kind-$CLUSTER" "$@"; }

step "build $IMAGE"
docker build -t "$IMAGE" .

step "kind cluster $CLUSTER"
kind get clusters | grep -qx "$CLUSTER" || kind create cluster --name "$CLUSTER" --wait 120s
kind load docker-image "$IMAGE" --name "$CLUSTER"

step "helm install $RELEASE into $NAMESPACE"
helm upgrade --install "$RELEASE" ./chart --kube-context "kind-$CLUSTER" --namespace "$NAMESPACE" --create-namespace \
  --set image.repository="${IMAGE%:*}" --set image.tag="${IMAGE##*:}" --set image.pullPolicy=Never \
  --set admin.password="$ADMIN_PASSWORD" --set publicUrl="http://localhost:$LOCAL_PORT" \
  --wait --timeout 5m
K -n "$NAMESPACE" rollout status "deployment/$RELEASE-ops-console" --timeout 180s
K get crd canaries.canaries.flanksource.com >/dev/null

step "port-forward localhost:$LOCAL_PORT"
K -n "$NAMESPACE" port-forward "service/$RELEASE-ops-console" "$LOCAL_PORT:8080" >"$WORK/pf.log" 2>&1 &
PF_PID=$!
BASE="http://localhost:$LOCAL_PORT"
for _ in $(seq 1 30); do curl -sf "$BASE/readyz" >/dev/null && break; sleep 1; done

step "smoke: /readyz"
curl -sf "$BASE/readyz" | jq -e '.status == "ok"'

step "smoke: sign in"
curl -sf -c "$WORK/cookies" -H 'Content-Type: application/json' \
  -d "{\"username\":\"$ADMIN_EMAIL\",\"password\":\"$ADMIN_PASSWORD\"}" "$BASE/api/auth/login" >/dev/null
curl -sf -b "$WORK/cookies" "$BASE/api/auth/whoami" | jq -e '.user.email // .email // true' >/dev/null

step "smoke: a Canary applied with kubectl reaches the console"
K -n default apply -f tests/fixtures/k8s/canary-http.yaml
for _ in $(seq 1 30); do
  curl -sf -b "$WORK/cookies" "$BASE/api/db/canaries?select=name&name=eq.http-local" | jq -e 'length == 1' >/dev/null && break
  sleep 1
done
curl -sf -b "$WORK/cookies" "$BASE/api/db/canaries?select=name,source&name=eq.http-local" | jq -e '.[0].source == "KubernetesCRD"'

step "smoke: kubectl through the console's kubeconfig"
curl -sf -b "$WORK/cookies" "$BASE/api/kubeconfig" -o "$WORK/kubeconfig"
kubectl --kubeconfig "$WORK/kubeconfig" get canaries -A
kubectl --kubeconfig "$WORK/kubeconfig" get canaries -A -o name | grep -qx 'canary.canaries.flanksource.com/http-local'

step "kind-e2e PASSED"
