/// The OpenAPI 3 description of the provider's JSON endpoints, served at `/openapi.json` (the test script runs a
/// schema-driven fuzzer against it). Kept by hand next to the routes it describes.
enum OpenAPIDocument {
    /// The registration operation, served at both of its paths.
    private static let registration = #"""
    "security": [{"session": []}],
          "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Registration"}}}},
          "responses": {"204": {"description": "registered"},
            "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"},
            "403": {"$ref": "#/components/responses/Error"}, "413": {"$ref": "#/components/responses/Error"},
            "422": {"$ref": "#/components/responses/Error"}, "500": {"$ref": "#/components/responses/Error"},
            "503": {"$ref": "#/components/responses/Error"}}
    """#

    /// A 1.3 / 1.5 attestation request: JSON `{assertion}` or the JWT itself (the production client's text/plain).
    private static let attestationRequest = #"""
    "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/AssertionBody"}},
            "text/plain": {"schema": {"type": "string"}}, "application/jwt": {"schema": {"type": "string"}}}}
    """#

    /// The IT-Wallet attestation error table (0.9.3, 1.0; 1.3 and 1.5 repeat it).
    private static let attestationErrors = #"""
    "400": {"$ref": "#/components/responses/Error"}, "403": {"$ref": "#/components/responses/Error"},
                "404": {"$ref": "#/components/responses/Error"}, "413": {"$ref": "#/components/responses/Error"},
                "422": {"$ref": "#/components/responses/Error"}, "500": {"$ref": "#/components/responses/Error"},
                "503": {"$ref": "#/components/responses/Error"}
    """#

    /// The IT-Wallet 1.0 Wallet Instance management error table.
    private static let managementErrors = #"""
    "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"},
                "403": {"$ref": "#/components/responses/Error"}, "404": {"$ref": "#/components/responses/Error"},
                "500": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}
    """#

    /// The revocation operation, served by PATCH, POST and PUT …/status.
    private static let revocation = #"""
    "security": [{"session": []}], "parameters": [{"$ref": "#/components/parameters/ManagedInstance"}],
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Revocation"}}}},
            "responses": {"204": {"description": "revoked (also when it already was)"},
              "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"},
              "403": {"$ref": "#/components/responses/Error"}, "404": {"$ref": "#/components/responses/Error"},
              "413": {"$ref": "#/components/responses/Error"}, "422": {"$ref": "#/components/responses/Error"},
              "500": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}}
    """#

    static let json = #"""
    {
      "openapi": "3.0.3",
      "info": {"title": "Tessera Wallet Provider", "version": "1.0.0",
               "description": "IT-Wallet Wallet Provider: federation metadata, nonces, Wallet Instance registration and management, Wallet Attestations (0.9, 0.9.3, 1.0), Wallet Instance and Key Attestations (1.3, 1.5), Token Status Lists, accounts."},
      "paths": {
        "/.well-known/openid-federation": {"get": {"summary": "Entity Configuration", "responses": {
          "200": {"description": "signed entity statement", "content": {"application/entity-statement+jwt": {"schema": {"type": "string"}}}}}}},
        "/nonce": {"get": {"summary": "A single-use nonce (5 minutes)", "responses": {
          "200": {"description": "nonce", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Nonce"}}}},
          "500": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}}}},
        "/wallet-instance": {"post": {"summary": "Register a Wallet Instance (IT-Wallet 0.7-0.9 path)", \#(registration)}},
        "/wallet-instances": {"post": {"summary": "Register a Wallet Instance (the production client and 1.0 path)", \#(registration)},
          "get": {"summary": "The account's Wallet Instances (IT-Wallet 1.0 retrieval)", "security": [{"session": []}],
            "responses": {"200": {"description": "every instance of the account", "content": {"application/json": {"schema": {
              "type": "array", "items": {"$ref": "#/components/schemas/ManagedInstance"}}}}},
              \#(managementErrors)}}},
        "/token": {"post": {"summary": "Wallet Attestation, IT-Wallet 0.7-0.9 (JWT bearer grant; war+jwt or var+jwt)",
          "requestBody": {"required": true, "content": {
            "application/x-www-form-urlencoded": {"schema": {"$ref": "#/components/schemas/TokenRequest"}},
            "application/json": {"schema": {"$ref": "#/components/schemas/TokenRequest"}}}},
          "responses": {"200": {"description": "wallet-attestation+jwt: the JWT itself for a form, {wallet_attestation} for JSON",
            "content": {"application/jwt": {"schema": {"type": "string"}},
              "application/json": {"schema": {"type": "object", "required": ["wallet_attestation"],
                "properties": {"wallet_attestation": {"type": "string"}}}}}},
            "400": {"$ref": "#/components/responses/Error"}, "403": {"$ref": "#/components/responses/Error"},
            "413": {"$ref": "#/components/responses/Error"}, "500": {"$ref": "#/components/responses/Error"},
            "503": {"$ref": "#/components/responses/Error"}}}},
        "/wallet-attestation": {"post": {"summary": "Wallet Attestation, IT-Wallet 0.9.3 (war+jwt or var+jwt as JSON; the JWT itself back)",
          "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/AssertionBody"}}}},
          "responses": {"200": {"description": "wallet-attestation+jwt", "content": {"application/jwt": {"schema": {"type": "string"}}}},
            \#(attestationErrors)}}},
        "/wallet-attestations": {"post": {"summary": "Wallet Attestations, IT-Wallet 1.0 (wp-war+jwt): jwt, dc+sd-jwt and mso_mdoc",
          "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/AssertionBody"}}}},
          "responses": {"200": {"description": "the attestations, one per format, bound to the same key", "content": {"application/json": {"schema": {
            "type": "object", "required": ["wallet_attestations"], "properties": {"wallet_attestations": {"type": "array", "minItems": 3, "maxItems": 3,
              "items": {"type": "object", "required": ["format", "wallet_attestation"],
                "properties": {"format": {"type": "string", "enum": ["jwt", "dc+sd-jwt", "mso_mdoc"]}, "wallet_attestation": {"type": "string"}}}}}}}}},
            \#(attestationErrors)}}},
        "/wallet-instance-attestations": {"post": {"summary": "Wallet Instance Attestation, IT-Wallet 1.3 (wia-request+jwt)",
          \#(attestationRequest), "responses": {"200": {"description": "oauth-client-attestation+jwt", "content": {"application/json": {"schema": {
            "$ref": "#/components/schemas/WalletInstanceAttestation"}}}}, \#(attestationErrors)}}},
        "/wallet-instance-attestation": {"post": {"summary": "Wallet Instance Attestation, IT-Wallet 1.5 (wia-request+jwt; client_status)",
          \#(attestationRequest), "responses": {"200": {"description": "oauth-client-attestation+jwt", "content": {"application/json": {"schema": {
            "$ref": "#/components/schemas/WalletInstanceAttestation"}}}}, \#(attestationErrors)}}},
        "/key-attestations": {"post": {"summary": "Key Attestation, IT-Wallet 1.3 (wua-request+jwt; io-wallet's path)",
          \#(attestationRequest), "responses": {"200": {"description": "key-attestation+jwt", "content": {"application/json": {"schema": {
            "$ref": "#/components/schemas/KeyAttestation"}}}}, \#(attestationErrors)}}},
        "/wallet-unit-attestations": {"post": {"summary": "Key Attestation, IT-Wallet 1.3, by its earlier name (wua-request+jwt)",
          \#(attestationRequest), "responses": {"200": {"description": "key-attestation+jwt", "content": {"application/json": {"schema": {
            "type": "object", "required": ["wallet_unit_attestation"], "properties": {"wallet_unit_attestation": {"type": "string"}}}}}},
            \#(attestationErrors)}}},
        "/key-attestation": {"post": {"summary": "Key Attestation, IT-Wallet 1.5 (ka-request+jwt; key_storage_status)",
          \#(attestationRequest), "responses": {"200": {"description": "key-attestation+jwt", "content": {"application/json": {"schema": {
            "$ref": "#/components/schemas/KeyAttestation"}}}}, \#(attestationErrors)}}},
        "/status-lists/{id}": {"get": {"summary": "A Token Status List (draft-ietf-oauth-status-list §8.1): JWT unless Accept prefers the CWT",
          "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
            {"name": "Accept", "in": "header", "required": false, "schema": {"type": "string",
              "enum": ["application/statuslist+jwt", "application/statuslist+cwt", "*/*"]}}],
          "responses": {"200": {"description": "the Status List Token; Cache-Control max-age = its ttl", "content": {
              "application/statuslist+jwt": {"schema": {"type": "string"}},
              "application/statuslist+cwt": {"schema": {"type": "string", "format": "binary"}}}},
            "404": {"$ref": "#/components/responses/Error"}, "406": {"$ref": "#/components/responses/Error"},
            "500": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}}}},
        "/wallet-instances/{id}": {
          "get": {"summary": "One Wallet Instance of the account (IT-Wallet 1.0 retrieval)", "security": [{"session": []}],
            "parameters": [{"$ref": "#/components/parameters/ManagedInstance"}],
            "responses": {"200": {"description": "instance", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ManagedInstance"}}}},
              \#(managementErrors)}},
          "patch": {"summary": "Revoke a Wallet Instance (IT-Wallet 1.0)", \#(revocation)},
          "post": {"summary": "Revoke a Wallet Instance (IT-Wallet 1.0, POST alternative)", \#(revocation)}},
        "/wallet-instances/{id}/status": {
          "get": {"summary": "A Wallet Instance's revocation status (production client)", "security": [{"session": []}],
            "parameters": [{"$ref": "#/components/parameters/ManagedInstance"}],
            "responses": {"200": {"description": "status", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/InstanceStatus"}}}},
              \#(managementErrors)}},
          "put": {"summary": "Revoke a Wallet Instance (production client)", \#(revocation)}},
        "/wallet-instances/current/status": {"get": {"summary": "The account's newest valid Wallet Instance (else its newest): status",
          "security": [{"session": []}],
          "responses": {"200": {"description": "status", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/InstanceStatus"}}}},
            \#(managementErrors)}}},
        "/api/accounts": {"post": {"summary": "Sign up (the TOTP factor is confirmed by the first login)",
          "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SignUp"}}}},
          "responses": {"201": {"description": "account", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Account"}}}},
            "400": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}}}},
        "/api/login": {"post": {"summary": "Log in with password and TOTP code",
          "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Login"}}}},
          "responses": {"200": {"description": "session", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Session"}}}},
            "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"},
            "429": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}}}},
        "/api/logout": {"post": {"summary": "End the session", "security": [{"session": []}],
          "responses": {"204": {"description": "logged out"}, "401": {"$ref": "#/components/responses/Error"}}}},
        "/api/account/purge": {"post": {"summary": "Purge the account and every row of it", "security": [{"session": []}],
          "responses": {"204": {"description": "purged"}, "401": {"$ref": "#/components/responses/Error"}}}},
        "/api/wallet-instances": {"get": {"summary": "The account's Wallet Instances", "security": [{"session": []}],
          "responses": {"200": {"description": "list", "content": {"application/json": {"schema": {"type": "object", "required": ["wallet_instances"],
            "properties": {"wallet_instances": {"type": "array", "items": {"$ref": "#/components/schemas/WalletInstance"}}}}}}},
            "401": {"$ref": "#/components/responses/Error"}}}},
        "/api/wallet-instances/{id}": {"get": {"summary": "One Wallet Instance", "security": [{"session": []}],
          "parameters": [{"$ref": "#/components/parameters/InstanceID"}],
          "responses": {"200": {"description": "instance", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/WalletInstance"}}}},
            "401": {"$ref": "#/components/responses/Error"}, "404": {"$ref": "#/components/responses/Error"}}}},
        "/api/wallet-instances/{id}/revoke": {"post": {"summary": "Revoke a Wallet Instance", "security": [{"session": []}],
          "parameters": [{"$ref": "#/components/parameters/InstanceID"}],
          "responses": {"204": {"description": "revoked"}, "401": {"$ref": "#/components/responses/Error"},
            "404": {"$ref": "#/components/responses/Error"}}}},
        "/api/wallet-instances/{id}/pid": {"post": {"summary": "Report the instance's PID (active revokes the PID of the account's other instances)",
          "security": [{"session": []}], "parameters": [{"$ref": "#/components/parameters/InstanceID"}],
          "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["status"],
            "properties": {"status": {"type": "string", "enum": ["active", "none"]}}}}}},
          "responses": {"204": {"description": "recorded"}, "400": {"$ref": "#/components/responses/Error"},
            "401": {"$ref": "#/components/responses/Error"}, "404": {"$ref": "#/components/responses/Error"}}}}
      },
      "components": {
        "securitySchemes": {"session": {"type": "http", "scheme": "bearer"}},
        "parameters": {"InstanceID": {"name": "id", "in": "path", "required": true,
          "description": "base64url(SHA-256(hardware_key_tag))", "schema": {"type": "string"}},
          "ManagedInstance": {"name": "id", "in": "path", "required": true,
            "description": "the instance id, base64url(SHA-256(hardware_key_tag)), or the hardware key tag itself", "schema": {"type": "string"}}},
        "responses": {"Error": {"description": "error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}},
        "schemas": {
          "Error": {"type": "object", "required": ["error", "error_description"],
            "properties": {"error": {"type": "string"}, "error_description": {"type": "string"}}},
          "Nonce": {"type": "object", "required": ["nonce"], "properties": {"nonce": {"type": "string"}}},
          "Registration": {"type": "object", "required": ["key_attestation", "hardware_key_tag"], "additionalProperties": false,
            "description": "the challenge in challenge (0.7-0.9, the production client) or nonce (1.0), exactly one of them",
            "properties": {"challenge": {"type": "string"}, "nonce": {"type": "string"}, "key_attestation": {"type": "string"},
              "hardware_key_tag": {"type": "string"}, "is_renewal": {"type": "boolean"}}},
          "AssertionBody": {"type": "object", "required": ["assertion"], "additionalProperties": false,
            "properties": {"assertion": {"type": "string"}}},
          "WalletInstanceAttestation": {"type": "object", "required": ["wallet_instance_attestation"],
            "properties": {"wallet_instance_attestation": {"type": "string"}}},
          "KeyAttestation": {"type": "object", "required": ["key_attestation"], "properties": {"key_attestation": {"type": "string"}}},
          "Revocation": {"type": "object", "required": ["status"], "additionalProperties": false,
            "properties": {"status": {"type": "string", "enum": ["REVOKED"]}}},
          "ManagedInstance": {"type": "object", "required": ["id", "status", "iat", "platform"],
            "properties": {"id": {"type": "string"}, "status": {"type": "string", "enum": ["ACTIVE", "REVOKED"]},
              "iat": {"type": "integer"}, "platform": {"type": "string", "enum": ["ios", "android"]},
              "revoked_at": {"type": "integer"}, "revocation_reason": {"type": "string"}}},
          "InstanceStatus": {"type": "object", "required": ["id", "is_revoked"],
            "properties": {"id": {"type": "string"}, "is_revoked": {"type": "boolean"}, "revocation_reason": {"type": "string"}}},
          "TokenRequest": {"type": "object", "required": ["grant_type", "assertion"],
            "properties": {"grant_type": {"type": "string", "enum": ["urn:ietf:params:oauth:grant-type:jwt-bearer"]}, "assertion": {"type": "string"}}},
          "SignUp": {"type": "object", "required": ["email", "password"],
            "properties": {"email": {"type": "string"}, "password": {"type": "string"}}},
          "Account": {"type": "object", "required": ["account_id", "totp_secret", "otpauth_uri"],
            "properties": {"account_id": {"type": "string"}, "totp_secret": {"type": "string"}, "otpauth_uri": {"type": "string"}}},
          "Login": {"type": "object", "required": ["email", "password", "totp"],
            "properties": {"email": {"type": "string"}, "password": {"type": "string"}, "totp": {"type": "string"}}},
          "Session": {"type": "object", "required": ["session_token", "expires_at"],
            "properties": {"session_token": {"type": "string"}, "expires_at": {"type": "integer"}}},
          "WalletInstance": {"type": "object", "required": ["id", "platform", "status", "pid_status", "created_at"],
            "properties": {"id": {"type": "string"}, "platform": {"type": "string", "enum": ["ios", "android"]},
              "status": {"type": "string", "enum": ["valid", "revoked"]}, "pid_status": {"type": "string", "enum": ["none", "active", "revoked"]},
              "created_at": {"type": "integer"}, "revoked_at": {"type": "integer"}, "device": {"type": "object"}}}
        }
      }
    }
    """#
}
