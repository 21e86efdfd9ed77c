import Testing
import VaultProtocol

@Suite struct VaultSubjectsTests {
    @Test func subjectsOfAUser() throws {
        let guid = try VaultSubjects.guid(userGUID: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")
        #expect(guid == "0f1e2d3c4b5a69788796a5b4c3d2e1f0")
        #expect(VaultSubjects.command(guid, type: "secrets.datastore.add") == "OwnerSpace.\(guid).forVault.secrets.datastore.add")
        #expect(VaultSubjects.reply(guid, type: "profile.get", id: "e1") == "OwnerSpace.\(guid).forApp.profile.get.e1")
        #expect(VaultSubjects.notification(guid, .credentialsRotate) == "OwnerSpace.\(guid).forApp.credentials.rotate")
        #expect(VaultSubjects.peer(guid, kind: "message") == "MessageSpace.\(guid).forOwner.message")
    }

    @Test(arguments: ["", "not-a-guid", "0f1e2d3c4b5a69788796a5b4c3d2e1f", "0f1e2d3c4b5a69788796a5b4c3d2e1f0>", "0f1e2d3c.b5a69788796a5b4c3d2e1f0"])
    func rejectsWhatIsNotAGUID(_ text: String) {
        #expect(throws: VaultProtocolError.self) { try VaultSubjects.guid(userGUID: text) }
    }
}
