{{/*
Settings Tephra would refuse at start, or that would run wrongly, refused at template time with
what to change. Included by the Deployment, so `helm template` and `helm install` both stop here.
*/}}
{{- define "tephra.validate" -}}
{{- $replicas := int .Values.replicaCount }}
{{- if lt $replicas 1 }}
{{- fail (printf "replicaCount must be at least 1 (it is %d)" $replicas) }}
{{- end }}
{{- if and (include "tephra.sqlite" .) (gt $replicas 1) }}
{{- fail (printf "replicaCount is %d, but Tephra on SQLite runs as a single replica: each pod would have a database of its own and reconcile the same cluster. Several replicas need PostgreSQL: set database.existingSecret (a Secret holding the postgres:// URL) or database.url." $replicas) }}
{{- end }}
{{- with .Values.database.url }}
{{- if not (or (hasPrefix "postgres://" .) (hasPrefix "postgresql://" .)) }}
{{- fail "database.url must be a PostgreSQL URL (postgres://USER:PASSWORD@HOST:PORT/DB); leave it empty for SQLite" }}
{{- end }}
{{- end }}
{{- if and .Values.oidc.issuer (not .Values.oidc.clientId) }}
{{- fail "oidc.clientId is required with oidc.issuer" }}
{{- end }}
{{- if and .Values.oidc.clientId (not .Values.oidc.issuer) }}
{{- fail "oidc.clientId is set without oidc.issuer; set both or neither" }}
{{- end }}
{{- $url := include "tephra.publicUrl" . }}
{{- if and .Values.oidc.issuer (not $url) }}
{{- fail "oidc.issuer needs the URL users open: set publicUrl, or enable the Ingress with a host (the provider redirects users back to <publicUrl>/auth/callback)" }}
{{- end }}
{{- if and $url (not (hasPrefix "https://" $url)) (not .Values.allowInsecurePublicUrl) }}
{{- fail (printf "the public URL %s is http://, so session cookies would cross the network unencrypted: use https (ingress.tls.enabled, or an https publicUrl), or set allowInsecurePublicUrl" $url) }}
{{- end }}
{{- if and .Values.ingress.enabled (not .Values.ingress.host) }}
{{- fail "ingress.host is required when the Ingress is enabled" }}
{{- end }}
{{- end }}
