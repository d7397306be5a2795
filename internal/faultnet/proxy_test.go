package faultnet

import (
	"bufio"
	"net"
	"testing"
	"time"
)

func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 1024)
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					c.Write(buf[:n])
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// The proxy forwards both ways, cuts connections on demand and refuses
// new ones while asked to.
func TestProxy(t *testing.T) {
	p, err := Start(echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	c.Write([]byte("hello\n"))
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	if line, err := r.ReadString('\n'); err != nil || line != "hello\n" {
		t.Fatalf("echo %q %v", line, err)
	}
	p.Cut()
	if _, err := r.ReadString('\n'); err == nil {
		t.Fatal("the connection survived a cut")
	}
	p.Refuse(true)
	c2, err := net.Dial("tcp", p.Addr())
	if err == nil {
		c2.SetReadDeadline(time.Now().Add(20 * time.Second))
		if _, err := c2.Read(make([]byte, 1)); err == nil {
			t.Fatal("a refused connection carried data")
		}
		c2.Close()
	}
	if p.Accepts() != 1 || p.Cuts() != 1 {
		t.Fatalf("accepts %d cuts %d", p.Accepts(), p.Cuts())
	}
}
