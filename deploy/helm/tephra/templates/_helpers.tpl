{{/* Names and labels shared by every object of the release. */}}

{{- define "tephra.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's full name: the release name alone when it already names the chart. */}}
{{- define "tephra.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "tephra.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tephra.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "tephra.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "tephra.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: tephra
{{- end }}

{{- define "tephra.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "tephra.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "tephra.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* "true" when Tephra keeps its data in SQLite (no PostgreSQL URL is configured). */}}
{{- define "tephra.sqlite" -}}
{{- if not (or .Values.database.existingSecret .Values.database.url) }}true{{ end }}
{{- end }}

{{/* The Secret holding the database URL, the chart's own unless one exists already. */}}
{{- define "tephra.databaseSecretName" -}}
{{- default (printf "%s-database" (include "tephra.fullname" .)) .Values.database.existingSecret }}
{{- end }}

{{- define "tephra.databaseSecretKey" -}}
{{- if .Values.database.existingSecret }}{{ .Values.database.existingSecretKey }}{{ else }}database-url{{ end }}
{{- end }}

{{/* "true" when an OIDC client secret is configured (chart-created or existing). */}}
{{- define "tephra.oidcSecret" -}}
{{- if and .Values.oidc.issuer (or .Values.oidc.existingSecret .Values.oidc.clientSecret) }}true{{ end }}
{{- end }}

{{- define "tephra.oidcSecretName" -}}
{{- default (printf "%s-oidc" (include "tephra.fullname" .)) .Values.oidc.existingSecret }}
{{- end }}

{{- define "tephra.oidcSecretKey" -}}
{{- if .Values.oidc.existingSecret }}{{ .Values.oidc.existingSecretKey }}{{ else }}client-secret{{ end }}
{{- end }}

{{/* The public URL: given, or the Ingress's host (https when the Ingress has TLS). */}}
{{- define "tephra.publicUrl" -}}
{{- if .Values.publicUrl }}
{{- .Values.publicUrl | trimSuffix "/" }}
{{- else if and .Values.ingress.enabled .Values.ingress.host }}
{{- printf "%s://%s" (ternary "https" "http" (not (not .Values.ingress.tls.enabled))) .Values.ingress.host }}
{{- end }}
{{- end }}

{{- define "tephra.profileConfigMapName" -}}
{{- default (printf "%s-profile" (include "tephra.fullname" .)) .Values.existingClusterProfileConfigMap }}
{{- end }}

{{/* "true" when Tephra gets a cluster profile file. */}}
{{- define "tephra.hasProfile" -}}
{{- if or .Values.existingClusterProfileConfigMap .Values.clusterProfile }}true{{ end }}
{{- end }}

{{/* The ClusterRole with Tephra's rights inside a project namespace, bound there by Tephra. */}}
{{- define "tephra.projectRole" -}}
{{- printf "%s-project" (include "tephra.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The user name the API server gives Tephra's service account. */}}
{{- define "tephra.username" -}}
{{- printf "system:serviceaccount:%s:%s" .Release.Namespace (include "tephra.serviceAccountName" .) }}
{{- end }}

{{/* The CSI driver of S3 volumes: the cluster profile's, or Tephra's default. */}}
{{- define "tephra.s3CsiDriver" -}}
{{- default "ru.yandex.s3.csi" .Values.clusterProfile.s3CsiDriver }}
{{- end }}

{{/*
"true" when Tephra should count clients by X-Forwarded-For: as `config.trustForwardedFor` says,
or with `auto` when the Ingress is rendered and the NetworkPolicy lets only named peers (the
ingress controller) reach the port, so nobody else can send the header.
*/}}
{{- define "tephra.trustForwardedFor" -}}
{{- $trust := .Values.config.trustForwardedFor -}}
{{- $np := .Values.networkPolicy -}}
{{- if kindIs "bool" $trust -}}
{{- if $trust -}}true{{- end -}}
{{- else if and .Values.ingress.enabled $np.enabled (or $np.ingressNamespaces $np.ingressFrom) -}}
true
{{- end -}}
{{- end }}
