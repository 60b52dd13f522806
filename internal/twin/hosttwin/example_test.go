package hosttwin_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
)

// Start two twins, connect to one as the bootstrapper would (user key,
// host key checked against known_hosts), and stop them.
func ExampleStart() {
	ctx := context.Background()
	fleet, err := hosttwin.Start(ctx, hosttwin.Options{
		Hosts: []hosttwin.HostSpec{{Name: "gpu-0"}, {Name: "gpu-1", Profile: "port-down"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer fleet.Stop(ctx) //nolint:errcheck // an example

	h, _ := fleet.Host("gpu-0")
	pem, err := os.ReadFile(h.PrivateKeyFile)
	if err != nil {
		log.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(pem)
	if err != nil {
		log.Fatal(err)
	}
	hostKeys, err := knownhosts.New(h.KnownHostsFile)
	if err != nil {
		log.Fatal(err)
	}
	client, err := ssh.Dial("tcp", h.Address, &ssh.ClientConfig{
		User:            h.User,
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: hostKeys,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	session, err := client.NewSession()
	if err != nil {
		log.Fatal(err)
	}
	out, err := session.Output("ibv_devinfo -l")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(out))
	if err := fleet.WriteEndpoints("endpoints.json"); err != nil {
		log.Fatal(err)
	}
}
