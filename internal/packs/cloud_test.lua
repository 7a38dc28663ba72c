-- Tests for cloud.lua: teardown commands are denied (or asked about when the
-- kubectl context is unknown) however they are spelled; read-only, scoped
-- and reviewed forms pass.

local function sh(command)
  return fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" }, toolInput = { command = command },
    cwd = "/home/dev/infra", sessionId = "t" })
end

local denied = {
  { "terraform destroy", "terraform destroy" },
  { "terraform apply -auto-approve", "apply -auto-approve" },
  { "terraform apply -destroy", "apply -destroy" },
  { "tofu destroy -target=aws_instance.web", "tofu destroy" },
  { "terragrunt run-all destroy", "terragrunt destroy" },
  { "terraform state rm aws_instance.web", "terraform state rm" },
  { "tofu workspace delete staging", "tofu workspace delete" },
  { "pulumi destroy --yes", "pulumi destroy" },
  { "pulumi up -y", "pulumi up --yes" },
  { "pulumi stack rm dev --yes", "pulumi stack rm" },
  { "kubectl --context prod-eu delete deployment api", "protected context prod-eu" },
  { "kubectl delete ns payments --context=production", "protected context production" },
  { "helm uninstall api --kube-context live-1", "protected context live-1" },
  { "kubectl delete pods --all", "with --all" },
  { "kubectl delete pvc -A --all", "with --all" },
  { "kubectl delete namespace payments", "kubectl delete of namespace on the current context" },
  { "kubectl delete ns/payments", "of ns" },
  { "kubectl delete node worker-3", "of node" },
  { "kubectl delete pv data-0 pv data-1", "of pv" },
  { "kubectl delete pvc data-postgres-0 -n db", "of pvc" },
  { "kubectl delete crd certificates.cert-manager.io", "of crd" },
  { "kubectl delete clusterrolebinding admin", "of clusterrolebinding" },
  { "kubectl delete all --all -n web", "with --all" },
  { "kubectl delete deploy -A -l app=web", "with --all-namespaces" },
  { "kubectl delete -f k8s/", "every manifest in the folder k8s/" },
  { "kubectl delete -f .", "every manifest in the folder ." },
  { "kubectl delete --filename=manifests", "every manifest in the folder manifests" },
  { "kubectl delete -R -f deploy/app.yaml", "with --recursive" },
  { "kubectl delete -k overlays/dev", "of a kustomization" },
  { "cat all.yaml | kubectl delete -f -", "a manifest read from stdin" },
  { "kubectl delete pod $(kubectl get pods -o name)", "names computed from another command" },
  { "oc delete project payments", "oc delete of project" },
  { "helm uninstall api --all-namespaces", "helm uninstall with --all-namespaces" },
  { "docker system prune -af", "docker system prune" },
  { "docker system prune --all --volumes --force", "docker system prune" },
  { "docker volume rm pgdata", "docker volume rm" },
  { "docker volume prune -f", "docker volume prune" },
  { "docker image prune -a", "docker image prune --all" },
  { "docker container prune --force", "docker container prune" },
  { "docker network prune", "docker network prune" },
  { "docker rm -f web", "docker rm -f/-v/--all" },
  { "docker rm --force web", "docker rm -f/-v/--all" },
  { "docker rm -vf db", "docker rm -f/-v/--all" },
  { "docker rm $(docker ps -aq)", "computed from another command" },
  { "docker container rm -f web", "docker container rm" },
  { "docker rmi -f app:latest", "docker rmi -f/--all" },
  { "docker image rm --force app:latest", "docker image rm -f/--all" },
  { "docker stack rm app", "docker stack rm" },
  { "docker secret rm db_password", "docker secret rm" },
  { "podman rm --all", "podman rm -f/-v/--all" },
  { "podman volume rm --all", "podman volume rm" },
  { "podman system reset --force", "podman system reset" },
  { "podman pod rm -f mypod", "podman pod rm" },
  { "nerdctl -n k8s.io rmi -f busybox", "nerdctl rmi" },
  { "docker compose down -v", "docker compose down -v" },
  { "docker compose -f compose.prod.yml down --volumes", "docker compose down -v" },
  { "docker-compose down -v --remove-orphans", "docker-compose down -v" },
  { "podman-compose rm -v", "podman-compose rm -v" },
  { "aws s3 rm s3://backups --recursive", "aws s3 rm --recursive" },
  { "aws s3 rm s3://backups/*", "aws s3 rm of a wildcard" },
  { "aws s3 rb s3://backups --force", "aws s3 rb" },
  { "aws s3 rb s3://empty-bucket", "aws s3 rb" },
  { "aws s3 sync ./site s3://site --delete", "aws s3 sync --delete" },
  { "aws ec2 terminate-instances --instance-ids i-123", "aws ec2 terminate-instances" },
  { "aws rds delete-db-instance --db-instance-identifier app", "aws rds delete-db-instance" },
  { "aws cloudformation delete-stack --stack-name app", "aws cloudformation delete-stack" },
  { "aws iam delete-user --user-name ci", "aws iam delete-user" },
  { "aws ecr batch-delete-image --repository-name app --image-ids imageTag=v1", "batch-delete-image" },
  { "aws sqs purge-queue --queue-url https://sqs/q", "aws sqs purge-queue" },
  { "gcloud compute instances delete web-1 --zone europe-west1-b", "gcloud compute instances delete" },
  { "gcloud projects delete my-project", "gcloud projects delete" },
  { "gcloud storage rm -r gs://bucket/data", "gcloud storage rm --recursive" },
  { "gcloud storage rsync ./d gs://b --delete-unmatched-destination-objects",
    "gcloud storage rsync --delete-unmatched" },
  { "gsutil -m rm -r gs://bucket/data", "gsutil rm --recursive" },
  { "gsutil rb gs://bucket", "gsutil rb" },
  { "gsutil rsync -d -r ./d gs://b", "gsutil rsync -d" },
  { "az group delete --name rg-app --yes", "az group delete" },
  { "az storage account delete -n acct -g rg", "az storage account delete" },
  { "azd down --force --purge", "azd down" },
  { "azcopy sync ./d https://acct.blob.core.windows.net/c --delete-destination=true", "azcopy sync --delete" },
  { "vault kv delete secret/app", "vault kv delete" },
  { "vault kv destroy -versions=1,2 secret/app", "vault kv destroy" },
  { "vault kv metadata delete secret/app", "vault kv metadata delete" },
  { "vault secrets disable kv/", "vault secrets disable" },
  { "rclone purge remote:backups", "rclone purge" },
  { "rclone delete remote:logs --min-age 30d", "rclone delete" },
  { "rclone sync ./site remote:site", "rclone sync to the remote remote:site" },
  { "restic -r s3:s3.amazonaws.com/b forget --keep-last 3 --prune", "restic forget --prune" },
  { "restic prune", "restic prune" },
  { "borg delete /repo::2024-01-01", "borg delete" },
  { "borg prune --keep-daily=7 /repo", "borg prune" },
  { "velero delete backup nightly", "velero delete" },
  { "velero backup delete nightly --confirm", "velero backup delete" },
  { "kafka-topics --bootstrap-server b:9092 --delete --topic orders", "kafka-topics --delete" },
  { "kafka-topics.sh --bootstrap-server b:9092 --topic orders --delete", "kafka-topics.sh --delete" },
  { "kafka-delete-records --bootstrap-server b:9092 --offset-json-file o.json", "kafka-delete-records" },
  { "gh repo delete acme/app --yes", "gh repo delete" },
  { "gh secret delete DEPLOY_KEY", "gh secret delete" },
  { "gh release delete v1.2.0 -y", "gh release delete" },
  { "gh api -X DELETE repos/acme/app", "gh ... api delete" },
  { "glab repo delete acme/app", "glab repo delete" },
  { "op item delete 'Prod DB'", "op item delete" },
  { "bw delete item 0f3c", "bw delete" },
  { "pass rm -r work/", "pass rm" },
  { "heroku apps:destroy --app web --confirm web", "heroku apps:destroy" },
  { "heroku pg:reset DATABASE_URL", "heroku pg:reset" },
  { "fly apps destroy web", "fly apps destroy" },
  { "doctl compute droplet delete web-1 --force", "doctl compute droplet delete" },
  { "eksctl delete cluster --name prod", "eksctl delete" },
  { "cdk destroy --force", "cdk destroy" },
  { "firebase firestore:delete --all-collections", "firebase firestore:delete" },
  { "wrangler r2 bucket delete assets", "wrangler r2 bucket delete" },
  { "consul kv delete -recurse app/", "consul kv delete" },
  { "etcdctl del --prefix /registry", "etcdctl del" },
  { "openstack server delete web-1", "openstack server delete" },
  { "mc rm --recursive --force local/bucket", "mc rm --recursive" },
  { "mc rb local/bucket", "mc rb" },
  { "s3cmd del --recursive s3://b/logs", "s3cmd del --recursive" },
  { "bq rm -r -f -d project:dataset", "bq rm" },
  -- bypass attempts
  { "terraform apply --auto-approve", "apply -auto-approve" },
  { "terraform apply -auto-approve=true", "apply -auto-approve" },
  { "terraform -chdir=envs/prod apply -auto-approve", "apply -auto-approve" },
  { "ter''raform destroy", "terraform destroy" },
  { "TF=terraform; $TF destroy", "terraform destroy" },
  { "sudo -E /usr/local/bin/terraform destroy", "terraform destroy" },
  { "timeout 600 terraform destroy", "terraform destroy" },
  { "cd envs/prod && terraform init && terraform destroy", "terraform destroy" },
  { "sh -c 'kubectl --context prod delete ns api'", "protected context prod" },
  { "kubectl config use-context prod-us && kubectl delete deploy api", "protected context prod-us" },
  { "kubectx prod; kubectl delete svc api", "protected context prod" },
  { "K=kubectl; $K --context=PROD delete pod x", "protected context PROD" },
  { "echo $(aws s3 rm s3://b --recursive)", "aws s3 rm --recursive" },
  { "env AWS_PROFILE=prod aws s3 rm --recursive s3://b", "aws s3 rm --recursive" },
  { "kubectl get pods -o name | xargs kubectl delete --context prod", "protected context prod" },
  { "kubectl get pods -o name | xargs kubectl delete", "kinds only known when the command runs" },
  { "terraform destroy 2>&1 | tee log", "terraform destroy" },
  { "nice -n 10 terraform destroy", "terraform destroy" },
  { "bash -c \"terraform apply -auto-approve\"", "apply -auto-approve" },
  { "command terraform destroy", "terraform destroy" },
  { "kubectl delete deploy --all --context prod-eu", "protected context prod-eu" },
  { "helm --kube-context prod uninstall api", "protected context prod" },
  { "aws --profile prod s3 rm --recursive s3://b", "s3 rm --recursive" },
  { "aws s3 rm s3://b -\\-recursive", "aws s3 rm --recursive" },
  { "xargs -I{} gcloud sql instances delete {} < dbs.txt", "gcloud sql instances delete" },
  { "eval 'az vm delete -g rg -n vm1 --yes'", "az vm delete" },
  { "aws --region eu-west-1 --profile prod s3 rb s3://b --force", "s3 rb" },
  { "sudo docker system prune -af", "docker system prune" },
  { "/usr/bin/docker volume rm pgdata", "docker volume rm" },
  { "DOCKER_HOST=ssh://prod docker rm -f web", "docker rm" },
  { "docker -H ssh://prod volume prune -f", "docker volume prune" },
  { "docker --context prod rm -f web", "docker rm" },
  { "\"docker\" 'volume' rm data", "docker volume rm" },
  { "cd app && docker compose down -v && docker compose up -d", "docker compose down -v" },
  { "docker ps -aq | xargs docker rm -f", "docker rm" },
  { "kubectl delete NAMESPACE payments", "of namespace" },
  { "kubectl -n web delete pod,pvc --all", "with --all" },
  { "kubectl delete ns web --dry-run=none", "of ns" },
  { "sh -c 'gh repo delete acme/app --yes'", "gh repo delete" },
  { "GH=gh; $GH secret delete TOKEN", "gh secret delete" },
  { "aws-vault exec prod -- aws s3 rm --recursive s3://b", "aws s3 rm --recursive" },
  { "aws-vault exec prod aws ec2 terminate-instances --instance-ids i-1", "terminate-instances" },
  { "op run -- terraform destroy", "terraform destroy" },
  { "doppler run -- kubectl delete ns api", "of ns" },
  { "AWS s3 rb s3://b", "aws s3 rb" },
  { "gsutil -h 'Cache-Control:no-cache' rm -r gs://b", "rm --recursive" },
  { "rclone sync ./site \"$REMOTE\"", "rclone sync to the remote" },
  { "VAULT_ADDR=https://vault vault secrets disable secret/", "vault secrets disable" },
  { "gcloud run services delete web --region europe-west1", "gcloud run services delete" },
  { "aws --profile prod logs delete-log-group --log-group-name app", "logs delete-log-group" },
  { "gh run delete 123", "gh run delete" },
  -- a CI cache deleted is the whole team's builds slowed (--all: every branch's)
  { "gh cache delete --all", "gh cache delete" },
  { "gh repo archive acme/old --yes", "gh repo archive" },
  { "gh api --method=DELETE repos/acme/app/releases/1", "gh ... --method=delete" },
  { "gh api --method DELETE repos/acme/app", "gh ... api delete" },
  { "gcloud beta logging logs delete app", "gcloud beta logging logs delete" },
  -- a CLI's verb that removes without saying delete: deregister, revoke,
  -- untag, unsubscribe, undeploy, reset, clear, forget, archive
  { "aws elbv2 deregister-targets --target-group-arn arn:x --targets Id=i-1", "elbv2 deregister-targets" },
  { "aws ec2 revoke-security-group-ingress --group-id sg-1 --protocol tcp --port 22", "revoke-security-group" },
  { "vault token revoke s.abcdef", "vault token revoke" },
  { "vault lease revoke -prefix aws/creds", "vault lease revoke" },
  { "az acr repository untag -n reg --image web:v1", "az acr repository untag" },
  { "aws sns unsubscribe --subscription-arn arn:aws:sns:eu-west-1:1:alerts:x", "aws sns unsubscribe" },
  { "gcloud apigee deployments undeploy --api=orders --environment=test", "deployments undeploy" },
  { "gcloud compute instances reset web-1 --zone europe-west1-b", "instances reset" },
  { "gitlab-runner unregister --all-runners", "gitlab-runner unregister" },
  { "op connect token delete t-1", "op connect token delete" },
  { "gh ssh-key delete 42 --yes", "gh ssh-key delete" },
  { "gh gpg-key delete ABCD", "gh gpg-key delete" },
  -- operator CLIs of brokers, CI servers, payments, search, flags, CDNs, paging
  { "nats stream rm EVENTS -f", "nats stream rm" },
  { "nats kv del SETTINGS theme", "nats kv del" },
  { "rabbitmqadmin purge queue name=mail", "rabbitmqadmin purge" },
  { "rabbitmqctl delete_vhost /qa", "rabbitmqctl delete_vhost" },
  { "rabbitmqctl force_reset", "rabbitmqctl force_reset" },
  { "rabbitmqctl clear_permissions -p /qa bot", "rabbitmqctl clear_permissions" },
  { "circleci context remove-secret org/acme ctx TOKEN", "circleci context remove-secret" },
  { "java -jar /opt/jenkins-cli.jar -s https://ci.acme.test/ delete-job nightly", "jenkins-cli delete-job" },
  { "java -jar jenkins-cli.jar -auth @creds delete-node runner-4", "jenkins-cli delete-node" },
  { "gitlab-rake gitlab:backup:restore BACKUP=x", "gitlab-rake gitlab:backup:restore" },
  { "stripe prices delete price_9", "stripe prices delete" },
  { "stripe api_keys roll rk_test_1", "stripe api_keys roll" },
  { "algolia indices clear movies", "algolia indices clear" },
  { "unleash features archive beta-ui", "unleash features archive" },
  { "ldcli flags archive dark-mode --project web", "ldcli flags archive" },
  { "deck gateway reset --force", "deck gateway reset" },
  { "splunk remove index web", "splunk remove" },
  { "splunk clean eventdata -index web", "splunk clean" },
  { "pd escalation-policy delete P1", "pd escalation-policy delete" },
  { "skopeo delete docker://registry.acme.test/web:1.2", "skopeo delete" },
  { "crane delete registry.acme.test/web@sha256:abc", "crane delete" },
  { "heroku config:unset API_KEY -a web", "heroku config:unset" },
  { "firebase database:set /users data.json --force", "firebase database:set" },
  { "firebase hosting:disable --project web", "firebase hosting:disable" },
  -- a tool no rule knows, read by its grammar: tool group [group] VERB
  { "meili-admin indexes delete movies", "meili-admin indexes delete" },
  { "acmectl dns records remove www", "acmectl dns records remove" },
  { "influx bucket delete --name metrics", "influx bucket delete" },
  { "sudo btrfs subvolume delete /snapshots/daily", "btrfs subvolume delete" },
  { "wp db drop --yes", "wp db drop" },
  -- backups: compaction, rewrites, lock breaking, forgetting by ID
  { "borg compact /backups/repo", "borg compact" },
  { "borg recreate /backups/repo::monday --exclude '*.log'", "borg recreate" },
  { "borg break-lock /backups/repo", "borg break-lock" },
  { "restic forget 4bba301e", "restic forget of the snapshot 4bba301e" },
  { "restic -r s3:s3.amazonaws.com/b forget latest", "restic forget of the snapshot latest" },
  { "restic forget --tag nightly --unsafe-allow-remove-all", "unsafe-allow-remove-all" },
  { "restic -o s3.region=eu forget", "restic forget with no --keep policy" },
  { "restic unlock --remove-all", "restic unlock --remove-all" },
  { "rclone move ./out remote:archive", "rclone move" },
  { "rclone moveto b2:src/a.txt b2:dst/a.txt", "rclone moveto" },
  -- message brokers' scripts
  { "kafka-configs.sh --bootstrap-server k:9092 --alter --delete-config retention.ms --entity-type topics",
    "kafka-configs.sh --delete-config" },
  { "kafka-acls --bootstrap-server k:9092 --remove --topic t --force", "kafka-acls --remove" },
  { "kafka-consumer-groups --bootstrap-server k:9092 --group g --reset-offsets --to-earliest --all-topics --execute",
    "--reset-offsets --execute" },
  -- aws changes without a delete verb
  { "aws route53 change-resource-record-sets --hosted-zone-id Z9 --change-batch " ..
    "'{\"Changes\":[{\"Action\": \"DELETE\",\"ResourceRecordSet\":{}}]}'", "with a DELETE action" },
  { "aws cloudfront create-invalidation --distribution-id E1 --paths '/*'", "create-invalidation of /*" },
  -- SDK and ORM calls that delete: typed as a command, in a one-liner, in rails runner
  { "stripe_client.customers.delete('cus_9')", "stripe_client.customers.delete" },
  { "gateway.payment_method.delete('tok_1')", "gateway.payment_method.delete" },
  { "node -e \"idx.deleteObjects(['a'])\"", "idx.deleteObjects" },
  { "node -e \"index.clearObjects().wait()\"", "clearObjects" },
  { "python3 -c 'import boto3; boto3.client(\"s3\").delete_bucket(Bucket=\"b\")'", "delete_bucket" },
  { "rails runner 'User.where(test: true).delete_all'", "delete_all" },
  { "gitlab-rails runner \"Project.destroy_all\"", "Project.destroy_all" },
  { "nsupdate -k /etc/ddns.key update.txt", "nsupdate" },
  { "echo 'update delete www.example.com A' | nsupdate", "nsupdate" },
}

for _, c in ipairs(denied) do
  test("denies " .. c[1], function()
    local r = sh(c[1])
    expect.denied(r, c[2])
    expect.contains(r.reason, "cloud guard: ")
  end)
end

-- Each CLI the header names is read, also on a plain line the quick path
-- would otherwise let through.
local clis = { "aws", "gcloud", "az", "azcopy", "bq", "doctl", "linode-cli", "hcloud", "scw", "oci", "ibmcloud",
  "openstack", "exo", "civo", "flyctl", "fly", "heroku", "vercel", "netlify", "railway", "firebase", "supabase",
  "wrangler", "cf", "eksctl", "kops", "rosa", "cdk", "cdktf", "sam", "serverless", "sls", "sst", "eb", "argocd",
  "flux", "istioctl", "velero", "vault", "consul", "nomad", "etcdctl", "rpk", "kopia", "gh", "glab", "doppler",
  "infisical", "op", "bw", "pass", "gopass", "lpass", "restic", "borg", "rclone" }

for _, name in ipairs(clis) do
  test("denies a destroy verb of " .. name, function()
    expect.denied(sh(name .. " things destroy web-1"), name .. " things destroy")
    expect.no_objection(sh(name .. " things list"))
  end)
end

local function expect_asked(r, sub)
  expect.eq(r.denied, false, "denied")
  expect.eq(r.asked, true, "asked")
  expect.contains(r.reason, sub)
end

test("asks about kubectl delete of a named deployment when no context is named", function()
  expect_asked(sh("kubectl delete deployment api -n web"), "current context")
end)

test("asks about kubectl delete of one manifest file when no context is named", function()
  expect_asked(sh("kubectl delete -f deploy/api.yaml"), "of the manifest deploy/api.yaml")
end)

test("asks about helm uninstall when no context is named", function()
  expect_asked(sh("helm uninstall api -n web"), "current context")
end)

test("asks about kubectl drain when no context is named", function()
  expect_asked(sh("kubectl drain worker-3 --ignore-daemonsets"), "kubectl drain")
end)

test("asks about a context only known when the command runs", function()
  expect_asked(sh('kubectl --context "$CTX" delete svc web'), "only known when the command runs")
end)

test("denies a broad delete on a context only known when the command runs", function()
  expect.denied(sh('kubectl --context "$CTX" delete ns web'), "only known when the command runs")
end)

test("asks about terraform with a subcommand only known when it runs", function()
  expect_asked(sh("terraform $(cat next-step)"), "subcommand only known when it runs")
end)

test("asks about applying a saved plan", function()
  expect_asked(sh("terraform apply tfplan"), "saved plan tfplan")
end)

test("a deny says what to do instead", function()
  expect.denied(sh("docker volume rm pgdata"), "docker volume ls")
  expect.denied(sh("kubectl delete ns web"), "--dry-run=client")
  expect.denied(sh("gh repo delete acme/app"), "list, describe or show")
end)

test("a command given as an argv list is read", function()
  local r = fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" },
    toolInput = { command = { "bash", "-lc", "docker system prune -af" } }, cwd = "/w", sessionId = "t" })
  expect.denied(r, "docker system prune")
end)

test("a line the parser cannot read is denied", function()
  -- past the parser's byte limit: refused before any parsing, so the case
  -- costs nothing on a loaded machine
  expect.denied(sh("kubectl get pods " .. string.rep("x", 70000)), "could not be checked")
end)

local allowed = {
  -- an option and no verb: nothing to judge (the reason once failed to be made)
  "vault --yes", "netlify --delete", "openstack -c",
  "terraform plan",
  "terraform apply",
  "terraform apply -var 'region=eu-west-1'",
  "terraform init -upgrade && terraform validate",
  "terraform state list",
  "terraform state show aws_instance.web",
  "terraform workspace list",
  "pulumi preview",
  "pulumi stack ls",
  "kubectl get pods -A",
  "kubectl describe deployment api",
  "kubectl logs -f deploy/api -n web",
  "kubectl apply -f k8s/",
  "kubectl delete pod web-0",
  "kubectl delete pod web-0 -n web --grace-period=0 --force",
  "kubectl delete pods -l app=web -n web",
  "kubectl delete po/web-0 pod/web-1",
  "kubectl --context kind-dev delete pod web-0",
  "kubectl --context kind-dev delete ns scratch",
  "kubectl delete pod web-0 --context minikube --grace-period=0",
  "kubectl describe deployment api --context prod-eu",
  "kubectl delete pod web-0 --dry-run=client -o yaml --context staging",
  "kubectl delete ns payments --dry-run=server",
  "kubectl delete --help",
  "helm list --kube-context prod",
  "helm install api ./chart -n web",
  "helm upgrade --install api ./chart",
  "helm uninstall api --dry-run",
  "helm plugin uninstall diff",
  "docker ps -a",
  "docker images",
  "docker logs -f web",
  "docker build -t app .",
  "docker run --rm -v data:/data app",
  "docker exec web rm -rf /tmp/cache",
  "docker rm web",
  "docker container rm web-old",
  "docker rmi app:old",
  "docker rmi $(docker images -q -f dangling=true)",
  "docker image prune",
  "docker image prune -f",
  "docker builder prune -af",
  "docker network rm backend",
  "docker volume ls",
  "docker volume inspect pgdata",
  "docker system df",
  "docker compose down",
  "docker compose up -d --build",
  "docker-compose down --remove-orphans",
  "docker rm --help",
  "podman ps",
  "aws s3 ls s3://backups --recursive",
  "aws s3 cp build/ s3://site --recursive",
  "aws s3 sync ./site s3://site",
  "aws ec2 describe-instances",
  "aws ec2 terminate-instances --instance-ids i-1 --dry-run",
  "aws sts get-caller-identity",
  "aws ecs describe-services --cluster app --services delete-worker",
  "aws lambda invoke --function-name cleanup-remove-old out.json",
  "aws s3api put-object --bucket b --key rm-later --body f",
  "gcloud compute instances list",
  "gcloud config configurations delete old",
  "gcloud components remove kubectl",
  "gsutil ls gs://b",
  "az vm list -o table",
  "az extension remove --name aks-preview",
  "gh repo view acme/app",
  "gh repo clone acme/app",
  "gh pr create --title 'remove dead code' --body x",
  "gh pr merge 12 --squash --delete-branch",
  "gh issue list --label remove",
  "gh pr list",
  "gh api --method=GET repos/acme/app",
  "gh api repos/acme/app/releases",
  "gh extension remove gh-dash",
  "gh repo delete --help",
  "vault kv get secret/app",
  "vault secrets list",
  "rclone copy ./site remote:site",
  "rclone sync remote:site ./backup",
  "rclone sync ./site remote:site --dry-run",
  "rclone lsf remote:",
  "rclone config delete old-remote",
  "restic snapshots",
  "restic forget --keep-last 3",
  "restic forget --keep-last 3 --prune --dry-run",
  "borg prune -n --keep-daily=7 /repo",
  "borg list /repo",
  "velero backup get",
  "kafka-topics --bootstrap-server b:9092 --list",
  "op item get 'Prod DB'",
  "pass show email/work",
  "mc ls local/bucket",
  "bw list items",
  "cdk deploy",
  "fly deploy",
  "gcloud run deploy web --image gcr.io/p/web",
  "gh run list",
  "op run -- npm run delete-cache",
  "aws logs tail /app --follow",
  "grep -rn 'terraform destroy' docs/",
  "git commit -m 'document kubectl delete usage'",
  "echo docker system prune -af",
  "go test ./...",
  -- a verb first is the project's own tool at work; read verbs; local tools
  "npm rm left-pad", "cargo remove serde", "yarn remove lodash", "git worktree remove ../wt",
  "git stash drop", "pnpm store prune", "conda env remove -n scratch", "rustup toolchain uninstall nightly",
  "uv cache prune", "poetry env remove py3.11", "jupyter kernelspec remove old", "tmux kill-session -t dev",
  "k3d cluster delete dev", "kind delete cluster", "vagrant box remove ubuntu/jammy", "adb shell pm uninstall x",
  "echo hello remove me", "man docker rm", "tldr docker rm", "grep -rn delete src", "ip link delete veth1",
  "nats stream ls", "nats stream info ORDERS", "stripe customers list", "algolia indices browse movies",
  "fastly service list", "fastly service delete --help", "meili-admin indexes list", "acmectl dns records list",
  "influx bucket list",
  "borg extract /backups/repo::monday", "borg create /backups/repo::tuesday ~/src",
  "restic forget --keep-daily 7 --keep-weekly 4", "restic forget 4bba301e --dry-run", "restic cache --cleanup",
  "rclone move ./out remote:archive --dry-run", "rclone copy ./out remote:archive",
  "kafka-consumer-groups --bootstrap-server k:9092 --group g --reset-offsets --to-earliest --topic t",
  "kafka-configs --bootstrap-server k:9092 --describe --entity-type topics",
  "aws secretsmanager get-secret-value --secret-id app/db", "aws secretsmanager describe-secret --secret-id x",
  "aws ssm put-parameter --name /app/flag --value on --type String",
  "aws route53 change-resource-record-sets --hosted-zone-id Z9 --change-batch file://upsert.json",
  "aws cloudfront create-invalidation --distribution-id E1 --paths /index.html",
  "java -jar target/app.jar --remove-old", "java -jar jenkins-cli.jar -s https://ci.acme.test/ list-jobs",
  "python -c \"import os; os.remove('out.txt')\"", "python3 -c 'd = {1: 2}; d.clear(); print(d)'",
  "node -e \"const m = new Map(); console.log(m.size)\"", "rails runner 'puts User.count'",
  "gh run rerun 123", "gh workflow enable nightly.yml", "wrangler deployments list",
  "docker system prune --dry-run", "ctr images rm docker.io/library/redis:7", "skopeo inspect docker://x/y",
  "crane ls registry.acme.test/web", "stratus list", "stratus status", "firebase database:get /users",
  "firebase deploy --only hosting",
}

for _, cmd in ipairs(allowed) do
  test("allows " .. cmd, function()
    local r = sh(cmd)
    expect.no_objection(r)
    expect.eq(r.asked, nil, "asked")
  end)
end

-- Container escapes, destructive commands inside a container, and
-- defenses turned off: each reason names its class.
local cases = {
  { "docker run --privileged -v /:/host alpine chroot /host sh", "the host's /", "container escape" },
  { "docker run --rm -it -v /:/mnt alpine chroot /mnt sh", "the host's /", "container escape" },
  { "docker run --pid=host --privileged -it alpine nsenter -t 1 -m -u -n -i sh", "--pid=host",
    "container escape" },
  { "sudo docker run --pid host --cap-add=SYS_ADMIN alpine nsenter -t 1 sh", "--pid=host", "container escape" },
  { "podman run --mount type=bind,source=/etc,target=/x alpine sh", "the host's /etc", "container escape" },
  { "docker container run -d --volume=/root:/r alpine", "the host's /root", "container escape" },
  { "docker create -v /:/host:rw alpine", "the host's /", "container escape" },
  { "kubectl exec -it api-0 -- rm -rf /data", "rm -r /data", "inside a running container" },
  { "kubectl -n prod exec api-0 -c app -- sh -c 'rm -rf /var/lib/postgresql/data'", "rm -r /var/lib",
    "inside a running container" },
  { "docker exec db rm -rf /", "rm -r /", "inside a running container" },
  { "docker exec -u root -w /app web rm -Rf .", "rm -r .", "inside a running container" },
  { "docker exec web bash -c 'find / -name \"*.db\" -delete'", "find -delete /", "inside a running container" },
  { "docker exec web mkfs.ext4 /dev/sdb", "of a disk", "inside a running container" },
  { "docker swarm leave --force", "docker swarm leave", "removes infrastructure" },
  { "aws cloudtrail stop-logging --name org-trail", "cloudtrail stop-logging", "defenses off" },
  { "aws cloudtrail delete-trail --name org-trail", "cloudtrail delete-trail", "defenses off" },
  { "aws kms schedule-key-deletion --key-id 1234abcd --pending-window-in-days 7", "schedule-key-deletion",
    "defenses off" },
  { "aws --region eu-west-1 kms disable-key --key-id k", "disable-key", "defenses off" },
  { "aws guardduty delete-detector --detector-id d", "guardduty delete-detector", "defenses off" },
  { "gcloud logging sinks delete audit-sink", "logging sinks delete", "defenses off" },
  { "gcloud kms keys versions disable 1 --key k --keyring r --location global", "disable", "defenses off" },
  { "aws configservice stop-configuration-recorder --configuration-recorder-name default",
    "stop-configuration-recorder", "defenses off" },
  { "aws secretsmanager put-secret-value --secret-id app/db --secret-string x", "put-secret-value",
    "replaces, live" },
  { "aws secretsmanager update-secret --secret-id app/db --kms-key-id alias/k", "update-secret", "replaces, live" },
  { "aws ssm put-parameter --name /app/db --value x --overwrite", "put-parameter --overwrite", "replaces, live" },
  { "node -e \"client.deleteIndex('prod')\"", "an SDK call that deletes", "cannot be restored" },
  { "acmectl zones purge example.com", "a destructive verb of a service's command-line tool", "cannot be restored" },
  { "./stratus detonate aws.defense-evasion.cloudtrail-stop", "stratus detonate", "attack technique" },
  { "cd /opt/st && stratus --verbose detonate k8s.privilege-escalation.hostpath-volume", "stratus detonate",
    "attack technique" },
}
for _, c in ipairs(cases) do
  test("denies " .. c[1], function()
    local r = sh(c[1])
    expect.denied(r, c[2])
    expect.contains(r.reason, c[3])
  end)
end

for _, cmd in ipairs({
  "docker run --rm -v \"$PWD\":/src -w /src golang:1.26 go test ./...", "docker run --rm -v ./data:/data app",
  "docker run -v /etc/localtime:/etc/localtime:ro app", "docker run -v /:/host:ro alpine ls /host",
  "docker run --privileged docker:dind", "docker run --pid=host alpine ps", "docker run -v /tmp/x:/x alpine",
  "docker run --rm alpine rm -rf /", "kubectl exec -it api-0 -- ls /data", "kubectl exec api-0 -- cat /etc/hosts",
  "kubectl exec api-0 -- rm -rf /tmp/cache", "docker exec web rm /app/tmp.txt", "docker exec -it web sh",
  "docker exec web ps aux", "docker swarm init", "docker swarm join-token worker", "docker node ls",
  "aws cloudtrail describe-trails", "aws cloudtrail get-trail-status --name org-trail",
  "aws cloudtrail start-logging --name t", "aws kms describe-key --key-id k", "aws kms enable-key --key-id k",
  "aws guardduty list-detectors", "gcloud logging sinks list", "gcloud logging read 'severity>=ERROR'",
  "aws kms schedule-key-deletion --help",
}) do
  test("allows " .. cmd, function()
    local r = sh(cmd)
    expect.no_objection(r)
    expect.eq(r.asked, nil, "asked")
  end)
end

-- A collection's own delete in a one-liner (a hash, a map, a set) is no
-- SDK call; a class's, a call result's or an attribute's is.
for _, cmd in ipairs({
  [[ruby -e 'h = { "a" => 1 }; h.delete "a"; p h']],
  [==[node -e "const m = new Map([[1, 2]]); m.delete(1); console.log(m.size)"]==],
  [[ruby -e 'params = {id: 1}; params.delete(:id); puts params']],
}) do
  test("allows a collection's own delete: " .. cmd, function()
    expect.no_objection(fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" },
      cwd = "/home/dev/project", toolInput = { command = cmd } }))
  end)
end
for _, cmd in ipairs({
  [[ruby -e 'User.destroy(5)']],
  [[python3 -c "import boto3; boto3.resource('s3').Object('b', 'k').delete()"]],
  [[node -e "gateway.customer.delete('c_1')"]],
}) do
  test("denies an SDK delete in a one-liner: " .. cmd, function()
    expect.denied(fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" },
      cwd = "/home/dev/project", toolInput = { command = cmd } }), "an SDK call that deletes")
  end)
end

-- One named object deleted from a remote object store: gone for good
-- unless the bucket keeps versions, and outside the project (where the
-- files pack stops the delete of one file too): asked about
-- (SETTINGS.object_deletes) [rule object-delete]. Listing, copying up and
-- down, and a delete's --dryrun pass.
for _, c in ipairs({
  { "aws s3 rm s3://bucket/tmp/file.txt", "aws s3 rm of one object" },
  { "aws --region eu-west-1 s3 rm s3://acme-reports/2026/q3.csv", "s3 rm of one object" },
  { "AWS_PROFILE=dev aws s3 rm 's3://media/user uploads/a.png'", "aws s3 rm of one object" },
  { "gcloud storage rm gs://b/tmp/file.txt", "gcloud storage rm of one object" },
  { "gsutil rm gs://site/index.html", "gsutil rm of one object" },
  { "gsutil -m rm gs://site/old.js", "rm of one object" },
  { "mc rm local/bucket/file.txt", "mc rm of one object" },
  { "s3cmd del s3://b/notes.txt", "s3cmd del of one object" },
  { "s3cmd rm s3://b/notes.txt", "s3cmd rm of one object" },
}) do
  test("asks about " .. c[1], function()
    local r = sh(c[1])
    expect_asked(r, c[2])
    expect.contains(r.reason, "[rule object-delete]")
    expect.contains(r.reason, "versions")
  end)
end
for _, cmd in ipairs({ "aws s3 ls s3://bucket/tmp/", "aws s3 cp s3://bucket/tmp/file.txt .",
  "aws s3 rm s3://bucket/tmp/file.txt --dryrun", "gsutil cp gs://site/index.html .", "mc cp file.txt local/bucket/",
  "gcloud storage ls gs://b", "aws s3 rm help", "s3cmd ls s3://b" }) do
  test("allows " .. cmd, function()
    local r = sh(cmd)
    expect.no_objection(r)
    expect.eq(r.asked, nil, "asked")
  end)
end

-- A verb that stops or undoes what runs live without deleting it (a CI
-- workflow disabled, a run cancelled, a deploy rolled back, a feature
-- flag killed, an account deactivated or suspended), as the whole verb
-- word or a part of it, in a known CLI or in any CLI's grammar: asked
-- about (SETTINGS.live_stops) [rule live-stops]. Its opposites, reruns,
-- reads, deploys (activate) and --dry-run pass.
for _, c in ipairs({
  { "gh workflow disable nightly.yml", "gh workflow disable" },
  { "gh run cancel 123", "gh run cancel" },
  { "gh -R acme/web run cancel 77", "gh ... run cancel" },
  { "glab ci cancel --pipeline-id 9", "glab ci cancel" },
  { "wrangler rollback", "wrangler rollback" },
  { "wrangler deployments rollback 3f2a", "wrangler deployments rollback" },
  { "heroku releases:rollback v41 -a web", "heroku releases:rollback" },
  { "aws cloudformation cancel-update-stack --stack-name web", "cloudformation cancel-update-stack" },
  { "aws cloudformation rollback-stack --stack-name web", "cloudformation rollback-stack" },
  { "gcloud services disable run.googleapis.com", "gcloud services disable" },
  { "mc admin user disable local alice", "mc admin user disable" },
  { "unleash features disable beta-ui", "unleash features disable" },
  { "flagctl flags kill new-checkout --env production", "flagctl flags kill" },
  { "acmectl accounts deactivate u-17", "acmectl accounts deactivate" },
  { "acmectl apps suspend web", "acmectl apps suspend" },
  { "kubectl rollout undo deployment/web", "kubectl rollout undo" },
  { "kubectl --context prod -n shop rollout undo deploy web --to-revision=3", "kubectl rollout undo" },
  { "oc rollout undo dc/api", "oc rollout undo" },
  { "helm rollback web 41", "helm rollback" },
  { "helm --kube-context prod rollback web -n shop", "helm rollback" },
  { "kubectl scale deploy --all --replicas=0 -n prod", "kubectl scale --replicas=0" },
  { "kubectl -n shop scale deployment/web --replicas 0", "kubectl scale --replicas=0" },
  { "oc scale dc/api --replicas=$N", "oc scale --replicas=" },
}) do
  test("asks about " .. c[1], function()
    local r = sh(c[1])
    expect_asked(r, c[2])
    expect.contains(r.reason, "[rule live-stops]")
  end)
end
for _, cmd in ipairs({ "gh workflow enable nightly.yml", "gh run rerun 123 --failed", "gh run list --status failure",
  "gh run view 123 --log", "wrangler deployments list", "wrangler deploy", "heroku releases -a web",
  "fastly service version activate --version 5", "aws cloudformation describe-stack-events --stack-name web",
  "flagctl flags kill new-checkout --dry-run", "gcloud services enable run.googleapis.com", "tmux kill-session -t dev",
  "minikube addons disable ingress", "gh run cancel --help", "kubectl rollout status deployment/web",
  "kubectl rollout restart deployment/web", "kubectl rollout history deploy/web",
  "kubectl rollout undo deployment/web --dry-run=client", "helm rollback web 41 --dry-run", "helm history web",
  "helm upgrade web ./chart", "kubectl scale deployment/web --replicas=3",
  "kubectl scale deploy/web --replicas=0 --dry-run=client -o yaml" }) do
  test("allows " .. cmd, function()
    local r = sh(cmd)
    expect.no_objection(r)
    expect.eq(r.asked, nil, "asked")
  end)
end

-- A sync that makes a live service hold what a file lists deletes what
-- the file does not (decK sync, gateway sync; a sync with --prune); a
-- plan -destroy only shows what would go, but applying it on the same line
-- is a destroy.
for _, c in ipairs({
  { "deck sync --select-tag production", "deck sync" },
  { "deck gateway sync kong.yaml", "deck gateway sync" },
  { "deck gateway sync -s kong/ --select-tag team-a", "deck gateway sync" },
  { "argocd app sync web --prune", "argocd app sync --prune" },
  { "terraform plan -destroy -out=gone.tfplan && terraform apply gone.tfplan", "written by plan -destroy" },
  { "terraform plan -destroy -out gone.tfplan; terraform apply -auto-approve=false gone.tfplan", "written by plan" },
  { "tofu plan -destroy -out gone.plan; tofu apply -input=false gone.plan", "written by plan -destroy" },
}) do
  test("denies " .. c[1], function()
    local r = sh(c[1])
    expect.denied(r, c[2])
    expect.contains(r.reason, "cloud guard: ")
  end)
end
for _, cmd in ipairs({ "deck gateway diff kong.yaml", "deck gateway dump -o kong.yaml", "deck gateway validate kong.yaml",
  "argocd app sync web", "terraform plan -destroy", "tofu -chdir=envs/dev plan -destroy -var-file=dev.tfvars",
  "terraform plan -out=a.plan && terraform show a.plan" }) do
  test("allows " .. cmd, function()
    local r = sh(cmd)
    expect.no_objection(r)
    expect.eq(r.asked, nil, "asked")
  end)
end
test("asks about applying a saved plan that no plan -destroy of the line wrote", function()
  expect_asked(sh("terraform plan -destroy && terraform apply b.plan"), "apply of the saved plan b.plan")
end)
for _, c in ipairs({ { "terraform plan -destroy -out destroy.tfplan", "plan -destroy -out destroy.tfplan" },
  { "tofu plan -destroy -out=gone.plan", "tofu plan -destroy -out gone.plan" },
  { "terraform plan -input=false -destroy -out=/tmp/d.plan -var-file=prod.tfvars", "a saved plan that destroys" } }) do
  test("asks about " .. c[1], function() expect_asked(sh(c[1]), c[2]) end)
end

-- A new long-lived credential or a role granted in a cloud account or a
-- cluster outlives the session and reaches the whole account (privilege
-- escalation and persistence): asked about (SETTINGS.grants) [rule grants].
-- Reads of who one is, listings and --dry-run pass.
for _, c in ipairs({
  { "aws iam create-access-key --user-name deploy", "aws iam create-access-key" },
  { "aws --profile prod iam attach-user-policy --user-name eve --policy-arn arn:aws:iam::aws:policy/AdministratorAccess",
    "aws iam attach-user-policy" },
  { "aws iam put-role-policy --role-name ci --policy-name all --policy-document file://p.json", "aws iam put-role-policy" },
  { "aws iam create-login-profile --user-name eve --password x", "aws iam create-login-profile" },
  { "aws iam update-assume-role-policy --role-name admin --policy-document file://trust.json",
    "aws iam update-assume-role-policy" },
  { "aws iam add-user-to-group --user-name eve --group-name admins", "aws iam add-user-to-group" },
  { "gcloud projects add-iam-policy-binding acme --member=user:eve@x.example --role=roles/owner",
    "gcloud add-iam-policy-binding" },
  { "gcloud iam service-accounts keys create key.json --iam-account ci@acme.iam.gserviceaccount.com",
    "gcloud service-accounts keys create" },
  { "gcloud organizations set-iam-policy 1234 policy.json", "gcloud set-iam-policy" },
  { "az role assignment create --assignee eve@x.example --role Owner --scope /subscriptions/1",
    "az role assignment create" },
  { "az ad sp credential reset --id 0000-1111", "az ad sp credential reset" },
  { "az ad sp create-for-rbac --name ci --role contributor", "az ad sp create-for-rbac" },
  { "gsutil iam ch allUsers:objectViewer gs://acme-data", "gsutil iam ch" },
  { "kubectl create clusterrolebinding eve-admin --clusterrole=cluster-admin --user=eve", "clusterrolebinding to cluster-admin" },
  { "kubectl -n shop create rolebinding ci --clusterrole admin --serviceaccount=shop:ci", "rolebinding to admin" },
  { "sudo aws iam create-access-key", "aws iam create-access-key" },
}) do
  test("asks about a credential or a grant: " .. c[1], function()
    local r = sh(c[1])
    expect_asked(r, c[2])
    expect.contains(r.reason, "[rule grants]")
  end)
end
for _, cmd in ipairs({ "aws sts get-caller-identity", "aws iam list-users", "aws iam get-user",
  "aws iam list-attached-user-policies --user-name eve", "aws iam create-access-key --help",
  "gcloud projects get-iam-policy acme", "gcloud iam service-accounts keys list --iam-account ci@acme.iam.gserviceaccount.com",
  "az role assignment list --assignee eve@x.example", "kubectl create rolebinding view --clusterrole=view --user=eve",
  "kubectl create clusterrolebinding x --clusterrole=cluster-admin --user=eve --dry-run=client -o yaml",
  "kubectl get clusterrolebindings", "gsutil iam get gs://acme-data" }) do
  test("allows " .. cmd, function()
    local r = sh(cmd)
    expect.no_objection(r)
    expect.eq(r.asked, nil, "asked")
  end)
end
