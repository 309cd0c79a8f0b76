package queueconfig_test

import (
	"fmt"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/queueconfig"
)

func Example() {
	file, err := queueconfig.Parse("queues.yaml", []byte(`
queues:
  - name: orders
    attributes:
      VisibilityTimeout: 60
    tags:
      team: payments
    deadLetterQueue:
      name: orders-dlq
      maxReceiveCount: 5
  - name: orders-dlq
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	list, err := queueconfig.ParseList("MINISQS_QUEUES", "events.fifo,orders")
	if err != nil {
		fmt.Println(err)
		return
	}
	all, err := queueconfig.Merge(file, list)
	if err != nil {
		fmt.Println(err)
		return
	}

	e, err := engine.Open(engine.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()
	for range 2 {
		results, err := queueconfig.Apply(e, all)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, r := range results {
			fmt.Println(r.Queue.Name(), r.Action, r.Source)
		}
	}

	_, err = queueconfig.Parse("queues.yaml", []byte("queues:\n  - name: orders\n    attributes:\n      VisibilityTimeout: soon\n"))
	fmt.Println(err)
	// Output:
	// orders-dlq created queues.yaml:11
	// orders created queues.yaml:3
	// events.fifo created MINISQS_QUEUES
	// orders-dlq unchanged queues.yaml:11
	// orders unchanged queues.yaml:3
	// events.fifo unchanged MINISQS_QUEUES
	// queues.yaml:4: queues[0].attributes.VisibilityTimeout: Invalid value for the parameter VisibilityTimeout
}
