-- Tests for cloud.lua: teardown commands are denied (or asked about when the
-- kubectl context is unknown) however they are spelled; read-only and
-- reviewed forms pass.

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
  { "pulumi destroy --yes", "pulumi destroy" },
  { "pulumi up -y", "pulumi up --yes" },
  { "kubectl --context prod-eu delete deployment api", "protected context prod-eu" },
  { "kubectl delete ns payments --context=production", "protected context production" },
  { "helm uninstall api --kube-context live-1", "protected context live-1" },
  { "kubectl delete pods --all", "with --all" },
  { "kubectl delete pvc -A --all", "with --all" },
  { "aws s3 rm s3://backups --recursive", "aws s3 rm --recursive" },
  { "aws s3 rb s3://backups --force", "aws s3 rb --force" },
  { "aws ec2 terminate-instances --instance-ids i-123", "terminate-instances" },
  { "aws rds delete-db-instance --db-instance-identifier app", "delete-db-instance" },
  { "gcloud compute instances delete web-1 --zone europe-west1-b", "gcloud ... delete" },
  { "gcloud projects delete my-project", "gcloud ... delete" },
  { "gsutil -m rm -r gs://bucket/data", "gsutil rm" },
  { "az group delete --name rg-app --yes", "az ... delete" },
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
  { "terraform destroy 2>&1 | tee log", "terraform destroy" },
  { "nice -n 10 terraform destroy", "terraform destroy" },
  { "bash -c \"terraform apply -auto-approve\"", "apply -auto-approve" },
  { "command terraform destroy", "terraform destroy" },
  { "kubectl delete deploy --all --context prod-eu", "protected context prod-eu" },
  { "helm --kube-context prod uninstall api", "protected context prod" },
  { "aws --profile prod s3 rm --recursive s3://b", "aws s3 rm --recursive" },
  { "aws s3 rm s3://b -\\-recursive", "aws s3 rm --recursive" },
  { "xargs -I{} gcloud sql instances delete {} < dbs.txt", "gcloud ... delete" },
  { "eval 'az vm delete -g rg -n vm1 --yes'", "az ... delete" },
  { "aws --region eu-west-1 --profile prod s3 rb s3://b --force", "aws s3 rb --force" },
}

for _, c in ipairs(denied) do
  test("denies " .. c[1], function()
    expect.denied(sh(c[1]), c[2])
  end)
end

local function expect_asked(r, sub)
  expect.eq(r.denied, false, "denied")
  expect.eq(r.asked, true, "asked")
  expect.contains(r.reason, sub)
end

test("asks about kubectl delete when no context is named", function()
  expect_asked(sh("kubectl delete pod web-0"), "current context")
end)

test("asks about helm uninstall when no context is named", function()
  expect_asked(sh("helm uninstall api -n web"), "current context")
end)

test("asks about a context only known when the command runs", function()
  expect_asked(sh('kubectl --context "$CTX" delete pod web-0'), "only known when the command runs")
end)

test("asks about applying a saved plan", function()
  expect_asked(sh("terraform apply tfplan"), "saved plan tfplan")
end)

local allowed = {
  "terraform plan",
  "terraform plan -destroy -out destroy.tfplan",
  "terraform apply",
  "terraform apply -var 'region=eu-west-1'",
  "terraform init -upgrade && terraform validate",
  "terraform state list",
  "pulumi preview",
  "kubectl get pods -A",
  "kubectl --context kind-dev delete pod web-0",
  "kubectl delete pod web-0 --context minikube --grace-period=0",
  "kubectl describe deployment api --context prod-eu",
  "kubectl delete pod web-0 --dry-run=client -o yaml --context staging",
  "helm list --kube-context prod",
  "aws s3 ls s3://backups --recursive",
  "aws s3 cp build/ s3://site --recursive",
  "aws s3 rm s3://bucket/tmp/file.txt",
  "gcloud compute instances list",
  "az vm list -o table",
  "grep -rn 'terraform destroy' docs/",
  "git commit -m 'document kubectl delete usage'",
}

for _, cmd in ipairs(allowed) do
  test("allows " .. cmd, function()
    local r = sh(cmd)
    expect.no_objection(r)
    expect.eq(r.asked, nil, "asked")
  end)
end
