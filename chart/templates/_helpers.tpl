{{/* Names, labels and the few decisions several templates share. */}}

{{- define "ops-console.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ops-console.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "ops-console.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ops-console.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "ops-console.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "ops-console.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: ops-console
{{- end -}}

{{- define "ops-console.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "ops-console.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* "true" when the embedded PostgreSQL is used (no external database). */}}
{{- define "ops-console.embedded" -}}
{{- if not .Values.database.external.enabled -}}true{{- end -}}
{{- end -}}

{{/* The embedded database lives in one pod's volume: exactly one replica then. */}}
{{- define "ops-console.replicas" -}}
{{- if include "ops-console.embedded" . -}}1{{- else -}}{{ .Values.replicas }}{{- end -}}
{{- end -}}

{{- define "ops-console.adminSecretName" -}}
{{- default (printf "%s-admin" (include "ops-console.fullname" .)) .Values.admin.existingSecret -}}
{{- end -}}

{{- define "ops-console.databaseSecretName" -}}
{{- default (printf "%s-database" (include "ops-console.fullname" .)) .Values.database.external.existingSecret -}}
{{- end -}}

{{- define "ops-console.agentTokenSecretName" -}}
{{- default (printf "%s-agent" (include "ops-console.fullname" .)) .Values.agent.tokenSecret -}}
{{- end -}}

{{- define "ops-console.dataClaimName" -}}
{{- default (printf "%s-data" (include "ops-console.fullname" .)) .Values.database.embedded.persistence.existingClaim -}}
{{- end -}}

{{- define "ops-console.publicUrl" -}}
{{- if .Values.publicUrl -}}
{{- .Values.publicUrl | trimSuffix "/" -}}
{{- else if and .Values.ingress.enabled .Values.ingress.host -}}
{{- printf "%s://%s" (ternary "https" "http" .Values.ingress.tls.enabled) .Values.ingress.host -}}
{{- else -}}
{{- printf "http://localhost:%v" .Values.service.port -}}
{{- end -}}
{{- end -}}

{{- define "ops-console.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* Impersonated identities of /kubeproxy: fixed names the console sets in Impersonate-User / Impersonate-Group. */}}
{{- define "ops-console.writerUser" -}}ops-console-writer{{- end -}}
{{- define "ops-console.writerGroup" -}}ops-console:writers{{- end -}}
{{- define "ops-console.readerUser" -}}ops-console-reader{{- end -}}
{{- define "ops-console.readerGroup" -}}ops-console:readers{{- end -}}

{{/* The console's kinds, by API group (resources and their /status). Kept in step with server/modules/kubernetes/kinds.ts by tests/kube/chart.test.ts. */}}
{{- define "ops-console.kindRules" -}}
- apiGroups: [canaries.flanksource.com]
  resources: [canaries, topologies]
- apiGroups: [configs.flanksource.com]
  resources: [scrapeconfigs]
- apiGroups: [mission-control.flanksource.com]
  resources: [playbooks, connections, notifications, notificationsilences, incidentrules]
- apiGroups: [apm-hub.flanksource.com]
  resources: [loggingbackends]
{{- end -}}
{{- define "ops-console.kindStatusRules" -}}
- apiGroups: [canaries.flanksource.com]
  resources: [canaries/status, topologies/status]
- apiGroups: [configs.flanksource.com]
  resources: [scrapeconfigs/status]
- apiGroups: [mission-control.flanksource.com]
  resources: [playbooks/status, connections/status, notifications/status, notificationsilences/status, incidentrules/status]
- apiGroups: [apm-hub.flanksource.com]
  resources: [loggingbackends/status]
{{- end -}}

{{- define "ops-console.keysSecretName" -}}
{{- default (printf "%s-keys" (include "ops-console.fullname" .)) .Values.keys.existingSecret -}}
{{- end -}}

{{- define "ops-console.oidcSecretName" -}}
{{- default (printf "%s-oidc" (include "ops-console.fullname" .)) .Values.auth.oidc.existingSecret -}}
{{- end -}}
