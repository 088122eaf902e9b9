//! Builds the least-privilege documents a channel needs, as `serde_json` values, from the
//! required-permissions table: the role's permission policy, its trust policy, the statement for
//! the table key's policy (and a whole key policy with it), the cross-account table bucket
//! policy, and the Lake Formation grants for a query role.

use serde_json::{json, Map, Value};

use super::eval::Caller;
use super::facts::ChannelFacts;
use super::required::{purposes, Document, Level, Purpose};

/// What the configuration does not say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GenerateOptions {
    /// The dead-letter bucket's SSE-KMS key.
    pub dlq_kms_key: Option<String>,
    /// A role that queries the table from Athena, for the Lake Formation grants.
    pub query_role: Option<String>,
}

/// The documents, as JSON values.
#[derive(Debug, Clone, PartialEq)]
pub struct Documents {
    /// The execution role's permission policy.
    pub role_policy: Value,
    /// The execution role's trust policy.
    pub trust_policy: Value,
    /// The statement to add to the table key's policy; `None` without a customer managed key.
    pub table_key_policy_statement: Option<Value>,
    /// A whole key policy: AWS's default statement (IAM policies of the account may use the
    /// key) and the maintenance statement.
    pub table_key_policy: Option<Value>,
    /// The table bucket's policy, when the bucket is in another account than the role.
    pub table_bucket_policy: Option<Value>,
    /// The two `aws lakeformation grant-permissions` argument sets, with `query_role`.
    pub lake_formation: Option<Value>,
}

impl Documents {
    /// The `--format json` object: `role-policy`, `trust-policy`, `table-key-policy-statement`,
    /// `table-bucket-policy` (null where not needed), and `lake-formation` with a query role.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("role-policy".into(), self.role_policy.clone());
        out.insert("trust-policy".into(), self.trust_policy.clone());
        out.insert(
            "table-key-policy-statement".into(),
            self.table_key_policy_statement
                .clone()
                .unwrap_or(Value::Null),
        );
        out.insert(
            "table-bucket-policy".into(),
            self.table_bucket_policy.clone().unwrap_or(Value::Null),
        );
        if let Some(lf) = &self.lake_formation {
            out.insert("lake-formation".into(), lf.clone());
        }
        Value::Object(out)
    }
}

/// One statement of `purpose`: its required actions (never the suggested ones), resources,
/// principal and conditions.
pub fn statement(purpose: &Purpose) -> Value {
    let mut s = Map::new();
    s.insert("Sid".into(), json!(purpose.sid));
    s.insert("Effect".into(), json!("Allow"));
    if purpose.document != Document::RolePolicy {
        let principal = match &purpose.caller {
            Caller::Service(name) => json!({"Service": name}),
            Caller::Role(arn) => json!({"AWS": arn}),
        };
        s.insert("Principal".into(), principal);
    }
    let actions: Vec<&str> = purpose
        .needs
        .iter()
        .filter(|n| n.level != Level::Suggested)
        .map(|n| n.action)
        .collect();
    s.insert("Action".into(), json!(actions));
    if let Some(resources) = &purpose.resources {
        s.insert("Resource".into(), json!(resources));
    }
    if !purpose.conditions.is_empty() {
        let mut blocks = Map::new();
        for (operator, key, values) in &purpose.conditions {
            let block = blocks
                .entry(operator.to_string())
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(block) = block {
                let value = match values.as_slice() {
                    [one] => json!(one),
                    many => json!(many),
                };
                block.insert(key.to_string(), value);
            }
        }
        s.insert("Condition".into(), Value::Object(blocks));
    }
    Value::Object(s)
}

fn policy(statements: Vec<Value>) -> Value {
    json!({"Version": "2012-10-17", "Statement": statements})
}

/// The documents `facts`'s channel needs.
pub fn generate(facts: &ChannelFacts, options: &GenerateOptions) -> Documents {
    let all = purposes(facts, options.dlq_kms_key.as_deref());
    let of = |document: Document| -> Vec<Value> {
        all.iter()
            .filter(|p| p.document == document)
            .map(statement)
            .collect()
    };
    let key_statement = of(Document::TableKeyPolicy).into_iter().next();
    let table_key_policy = key_statement
        .as_ref()
        .map(|maintenance| whole_key_policy(facts, &all, maintenance));
    let bucket = of(Document::TableBucketPolicy);
    Documents {
        role_policy: policy(of(Document::RolePolicy)),
        trust_policy: policy(of(Document::TrustPolicy)),
        table_key_policy_statement: key_statement,
        table_key_policy,
        table_bucket_policy: (!bucket.is_empty()).then(|| policy(bucket)),
        lake_formation: options
            .query_role
            .as_ref()
            .map(|role| lake_formation(facts, role)),
    }
}

/// The table key's whole policy: AWS's default statement for the key's own account (IAM
/// policies of that account may use the key), the maintenance statement, and, for a key in
/// another account than the role, a statement naming the role (across accounts, the key policy
/// and the role's policy must both allow).
fn whole_key_policy(facts: &ChannelFacts, all: &[Purpose], maintenance: &Value) -> Value {
    let key_account = facts
        .table_key
        .as_deref()
        .and_then(|k| k.split(':').nth(4))
        .unwrap_or(&facts.account);
    let root = format!("arn:{}:iam::{key_account}:root", facts.partition);
    let mut statements = vec![
        json!({
            "Sid": "EnableIAMUserPermissions",
            "Effect": "Allow",
            "Principal": {"AWS": root},
            "Action": ["kms:*"],
            "Resource": "*"
        }),
        maintenance.clone(),
    ];
    let role_access = all.iter().find(|p| p.sid == "KMSTableKeyAccess");
    if let (true, Some(purpose), Some(role)) =
        (key_account != facts.account, role_access, &facts.role_arn)
    {
        let actions: Vec<&str> = purpose
            .needs
            .iter()
            .filter(|n| n.level != Level::Suggested)
            .map(|n| n.action)
            .collect();
        statements.push(json!({
            "Sid": "AllowChannelRoleFromOtherAccount",
            "Effect": "Allow",
            "Principal": {"AWS": role},
            "Action": actions,
            "Resource": "*"
        }));
    }
    json!({
        "Version": "2012-10-17",
        "Id": "schema2iceberg-table-key-policy",
        "Statement": statements
    })
}

/// The reference's two `aws lakeformation grant-permissions` commands for a query role (its
/// "Querying" section): on the namespace, then on the table. The `--resource` JSON is built as a
/// value and written by `serde_json`.
fn lake_formation(facts: &ChannelFacts, role: &str) -> Value {
    let bucket = facts.table_bucket.rsplit('/').next().unwrap_or("");
    let catalog = format!("{}:s3tablescatalog/{bucket}", facts.bucket_account());
    let namespace = facts
        .namespace
        .clone()
        .unwrap_or_else(|| "NAMESPACE".to_string());
    let table = facts
        .table_name
        .clone()
        .unwrap_or_else(|| "TABLE".to_string());
    let database = json!({"Database": {"CatalogId": catalog, "Name": namespace}});
    let table = json!({"Table": {"CatalogId": catalog, "DatabaseName": namespace, "Name": table}});
    let command = |resource: &Value, permissions: &str| {
        format!(
            "aws lakeformation grant-permissions --principal DataLakePrincipalIdentifier={} --resource '{}' --permissions {permissions}",
            shell_word(role),
            resource
        )
    };
    json!([
        command(&database, "DESCRIBE SELECT"),
        command(&table, "SELECT DESCRIBE")
    ])
}

/// `word` quoted for a POSIX shell when it needs it.
fn shell_word(word: &str) -> String {
    if word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || ":/-_.=@+,".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}
