//! The organisation page: an administrator creates a department and a project with GPU quotas
//! and an idle GPU timeout, sees them in the tables and in the org-unit API, tries a project policy (a widening one is
//! refused, naming the rule), saves a narrowing one after its preview, gives a user a role in the
//! project and takes it back, and deletes the project; all on one page, never loaded again. With
//! scripts off, the same forms post and come back to the page.

use serde_json::Value;
use std::time::Duration;
use tephra_tests::browser::Browser;
use tephra_tests::tephra;

const WAIT: Duration = Duration::from_secs(10);

#[tokio::test]
async fn an_administrator_sets_up_a_department_a_project_and_its_policy() -> anyhow::Result<()> {
    let server = tephra::start_release()?;
    let base = server.base_url();
    let browser = Browser::start().await?;
    browser.open(&format!("{base}/organisation")).await?;
    browser.mark_page().await?;
    // No cluster here: the cluster view says so instead of showing empty tables.
    browser
        .wait_for("[data-testid=cluster-empty]", WAIT)
        .await?;
    // The default project is kept: nothing offers to delete it.
    let projects = browser
        .text_of("[data-testid=projects-admin-table]", WAIT)
        .await?;
    assert!(projects.contains("default"), "{projects}");
    assert!(
        browser
            .text_of("[data-testid=delete-default]", Duration::from_millis(300))
            .await
            .is_err(),
        "no Delete for the default project"
    );

    browser.fill("department-name", "research").await?;
    browser.fill("department-gpu-quota", "8").await?;
    browser.fill("department-gpu-limit", "16").await?;
    browser
        .click("[data-testid=department-form] button[type=submit]")
        .await?;
    let departments = browser
        .wait_text("[data-testid=departments-table]", "research", WAIT)
        .await?;
    assert!(
        departments.contains("default: 8 (limit 16)"),
        "{departments}"
    );

    // A project asking more than its department has is refused, naming the field.
    browser.fill("project-name", "vision").await?;
    browser.select("project-department", "research").await?;
    browser.fill("project-gpu-quota", "12").await?;
    browser
        .click("[data-testid=project-form] button[type=submit]")
        .await?;
    let refusal = browser
        .wait_text("[data-testid=refusal]", "research", WAIT)
        .await?;
    assert!(refusal.contains("resources"), "{refusal}");
    browser.fill("project-gpu-quota", "4").await?;
    browser.fill("project-gpu-limit", "8").await?;
    browser.fill("project-idle-minutes", "30").await?;
    browser
        .click("[data-testid=project-form] button[type=submit]")
        .await?;
    let projects = browser
        .wait_text("[data-testid=projects-admin-table]", "vision", WAIT)
        .await?;
    assert!(projects.contains("default: 4 (limit 8)"), "{projects}");
    assert!(projects.contains("30 min"), "{projects}");
    let api: Value = reqwest::get(format!("{base}/api/v1/org-unit/projects/vision"))
        .await?
        .json()
        .await?;
    assert_eq!(api["parentName"], "research", "{api}");
    assert_eq!(api["resources"][0]["gpu"]["deserved"], 4.0, "{api}");
    assert_eq!(
        api["schedulingRules"]["trainingJobMaxIdleDurationSeconds"], 1800,
        "{api}"
    );

    // The project's policy: widening the system's is refused; a narrowing one is previewed,
    // then saved.
    browser.select("policy-scope", "project:vision").await?;
    browser
        .fill(
            "policy-text",
            r#"{"rules": {"security": {"hostNetwork": {"canEdit": true}}}}"#,
        )
        .await?;
    browser.click("[data-testid=policy-preview]").await?;
    let refused = browser
        .wait_text(
            "[data-testid=refusal]",
            "policy.rules.security.hostNetwork",
            WAIT,
        )
        .await?;
    assert!(
        refused.contains("the system policy does not allow"),
        "{refused}"
    );
    browser
        .fill(
            "policy-text",
            r#"{"defaults": {"compute": {"gpuDevicesRequest": 1}}, "rules": {"compute": {"gpuDevicesRequest": {"max": 2}}}}"#,
        )
        .await?;
    browser.click("[data-testid=policy-preview]").await?;
    let preview = browser
        .wait_text("[data-testid=policy-preview-table]", "at most 2", WAIT)
        .await?;
    assert!(
        preview.contains("spec.compute.gpuDevicesRequest"),
        "{preview}"
    );
    assert!(
        preview.contains("Locked by the system policy."),
        "{preview}"
    );
    browser.screenshot("organisation-policy-preview").await?;
    browser.click("[data-testid=policy-save]").await?;
    browser
        .wait_text("[data-testid=policy-status]", "Saved", WAIT)
        .await?;
    let stored: Value = reqwest::get(format!(
        "{base}/api/v2/policy/trainings?scope=project&projectId=vision"
    ))
    .await?
    .json()
    .await?;
    assert_eq!(
        stored["policy"]["rules"]["compute"]["gpuDevicesRequest"]["max"], 2.0,
        "{stored}"
    );

    // Members: a researcher in the project, listed and in the access-rules API, then removed;
    // an application that does not exist is refused, naming the field.
    browser.fill("member-subject", "ghost-app").await?;
    browser.select("member-kind", "app").await?;
    browser.select("member-role", "4").await?;
    browser.select("member-scope", "vision").await?;
    browser
        .click("[data-testid=member-form] button[type=submit]")
        .await?;
    let refused = browser
        .wait_text("[data-testid=refusal]", "subjectId", WAIT)
        .await?;
    assert!(refused.contains("no application is named"), "{refused}");
    browser.fill("member-subject", "ada@example.com").await?;
    browser.select("member-kind", "user").await?;
    browser
        .click("[data-testid=member-form] button[type=submit]")
        .await?;
    let members = browser
        .wait_text("[data-testid=members-table]", "ada@example.com", WAIT)
        .await?;
    assert!(members.contains("Researcher"), "{members}");
    assert!(members.contains("project vision"), "{members}");
    let rules: Value = reqwest::get(format!(
        "{base}/api/v1/authorization/access-rules?subjectId=ada@example.com"
    ))
    .await?
    .json()
    .await?;
    assert_eq!(rules["accessRules"][0]["scopeName"], "vision", "{rules}");
    assert_eq!(rules["accessRules"][0]["roleName"], "Researcher", "{rules}");
    // The choices were read again with the tables; the policy's scope kept what was chosen.
    assert_eq!(value_of(&browser, "policy-scope").await?, "project:vision");
    browser
        .click("[data-testid='remove-member-ada@example.com']")
        .await?;
    crate::wait_gone(&browser, "[data-testid=members-table]", "ada@example.com").await?;

    browser.click("[data-testid=delete-vision]").await?;
    crate::wait_gone(&browser, "[data-testid=projects-admin-table]", "vision").await?;
    // The deleted project is no longer a scope to choose: the editor is back on the system's.
    tephra_tests::wait_for("the policy scope to leave vision", WAIT, || async {
        let scope = value_of(&browser, "policy-scope").await.ok()?;
        (scope == "system:").then_some(())
    })
    .await?;
    assert!(!browser.reloaded().await?, "every form was posted in place");
    browser.close().await?;
    Ok(())
}

/// With scripts off, a form is a plain post: the server saves and sends the browser back to the
/// page, which shows what was saved; a refusal is a page of its own naming the field.
#[tokio::test]
async fn without_scripts_the_forms_still_save() -> anyhow::Result<()> {
    let server = tephra::start_release()?;
    let base = server.base_url();
    let browser = Browser::start_with(&["--blink-settings=scriptEnabled=false"]).await?;
    browser.client.goto(&format!("{base}/organisation")).await?;
    browser.fill("department-name", "offline").await?;
    browser.fill("department-gpu-quota", "2").await?;
    browser
        .click("[data-testid=department-form] button[type=submit]")
        .await?;
    let departments = browser
        .wait_text("[data-testid=departments-table]", "offline", WAIT)
        .await?;
    assert!(
        departments.contains("default: 2 (limit none)"),
        "{departments}"
    );
    let url = browser.client.current_url().await?;
    assert_eq!(url.path(), "/organisation", "back on the page");

    // A refused post says why, naming the field, and stores nothing.
    browser.fill("department-name", "lots").await?;
    browser.fill("department-gpu-quota", "many").await?;
    browser
        .click("[data-testid=department-form] button[type=submit]")
        .await?;
    let refused = browser
        .wait_text("main", "The form was not accepted", WAIT)
        .await?;
    assert!(refused.contains("gpu_quota"), "{refused}");
    assert!(refused.contains("\"many\""), "{refused}");
    let stored: Value = reqwest::get(format!("{base}/api/v1/org-unit/departments"))
        .await?
        .json()
        .await?;
    let names: Vec<&str> = stored["departments"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["name"].as_str())
        .collect();
    assert!(
        names.contains(&"offline") && !names.contains(&"lots"),
        "{stored}"
    );
    browser.close().await?;
    Ok(())
}

/// The value of the form control with this id.
async fn value_of(browser: &Browser, id: &str) -> anyhow::Result<String> {
    let value = browser
        .client
        .execute(
            "return document.getElementById(arguments[0]).value",
            vec![Value::from(id)],
        )
        .await?;
    Ok(value.as_str().unwrap_or_default().to_owned())
}
